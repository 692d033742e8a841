// Posts receipts over a keep-alive connection pool (undici). Redirects are never followed. Unless private
// addresses are allowed, every address is checked when the connection is made: the lookup resolves the
// host, drops non-public answers and pins the connection to a public one, so a name that resolved to a
// public address at registration and to 127.0.0.1 now (DNS rebinding) cannot reach an internal host.
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { isPublicAddress, systemResolver, type Resolver } from "./urlPolicy.js";

export interface PostResult {
  status: number | null;
  error: string | null;
  durationMs: number;
  retryAfterMs?: number;
}

export interface ReceiptClientOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolver?: Resolver;
  connections?: number;
}

function guardedLookup(resolve: Resolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.filter(isPublicAddress);
        if (allowed.length === 0) {
          callback(Object.assign(new Error(`${hostname} resolves only to non-public addresses`), { code: "EADDRNOTPUBLIC" }));
          return;
        }
        const address = allowed[0]!;
        const family = isIP(address);
        if (options?.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: unknown) => callback(error),
    );
  }) as unknown as LookupFunction;
}

/** A response body is read (and thrown away) up to this much, so the connection can be reused. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * What went wrong with an attempt that got no answer: a timeout, or the network's error code. Our own deadline
 * settles an attempt before its abort can come back here, so the only timeouts seen are undici's own.
 */
function failureReason(error: unknown, timeoutMs: number): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const timedOut = e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT";
  return timedOut ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.code ?? e.cause?.message ?? e.message ?? "request failed");
}

/** The longest wait a receiver's Retry-After can ask for: 1e308 s is no date at all. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/** Retry-After in seconds or as an HTTP date, in ms from now, at most MAX_RETRY_AFTER_MS. */
function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const seconds = Number(raw);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(raw) - Date.now();
  return Number.isNaN(ms) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** Where a webhook URL's POSTs go, or why they may not: worked out once per URL, not per attempt. */
type Target = { origin: string; path: string; refused?: undefined } | { refused: string };

/** URLs kept parsed per client; the map is emptied if it ever grows past this (webhooks are few). */
const MAX_CACHED_TARGETS = 10_000;

export class ReceiptClient {
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target>();

  constructor(private readonly opts: ReceiptClientOptions) {
    this.agent = new Agent({
      connections: opts.connections ?? 64,
      keepAliveTimeout: 30_000,
      connect: opts.allowPrivate ? {} : { lookup: guardedLookup(opts.resolver ?? systemResolver) },
    });
  }

  /**
   * One attempt; never throws. The POST goes straight to the agent's dispatch with a handler that keeps only
   * the status and Retry-After and counts the body away: `request()` made a Readable body, an AbortSignal
   * with its timer and an async resource per POST, a large share of a worker's CPU (bench/NOTES.md). One timer bounds the whole attempt; undici's header and body timeouts stay as well.
   */
  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const target = this.targetOf(url);
    if (target.refused !== undefined) return Promise.resolve({ status: null, error: target.refused, durationMs: 0 });
    const { timeoutMs } = this.opts;
    return new Promise<PostResult>((resolve) => {
      const attempt = new Attempt(timeoutMs, resolve);
      try {
        this.agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: "POST",
            body,
            headers,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          },
          attempt,
        );
      } catch (error) {
        attempt.failed(error);
      }
    });
  }

  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
      target = this.parse(url);
      this.targets.set(url, target);
    }
    return target;
  }

  private parse(url: string): Target {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (error) {
      return { refused: failureReason(error, this.opts.timeoutMs) };
    }
    if (!this.opts.allowPrivate) {
      if (parsed.protocol !== "https:") return { refused: "webhook URL is not https" };
      const host = parsed.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) && !isPublicAddress(host)) return { refused: `address ${host} is not public` };
    }
    return { origin: parsed.origin, path: parsed.pathname + parsed.search };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * One POST's handler: it keeps the status and Retry-After, counts the body away and settles the attempt once,
 * by its answer, its error or its deadline. A class, not closures made per POST: a worker posts thousands of
 * receipts a second.
 */
class Attempt implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | undefined;
  private result: PostResult | undefined;
  private status = 0;
  private retryAfter: number | undefined;
  private received = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly resolve: (result: PostResult) => void,
  ) {
    this.timer = setTimeout(Attempt.timedOut, timeoutMs, this);
  }

  private static timedOut(attempt: Attempt): void {
    attempt.settle({ status: null, error: `no answer within ${attempt.timeoutMs} ms`, durationMs: attempt.elapsed() });
    attempt.controller?.abort(new Error("timed out"));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Timed out while it waited for a connection: it goes no further.
    if (this.result) controller.abort(new Error("timed out"));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // informational: the answer is still to come
    this.status = statusCode;
    if (statusCode === 429 || statusCode === 503) this.retryAfter = retryAfterMs(headers["retry-after"]);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // The answer is its status; a receiver that sends more than this is cut off, its status kept.
    this.received += chunk.length;
    if (this.received > MAX_BODY_BYTES) {
      this.settle(this.answered());
      controller.abort(new Error("response body too large"));
    }
  }

  onResponseEnd(): void {
    this.settle(this.answered());
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    // Once the status is in, it is the answer, whatever becomes of the body.
    if (this.status > 0) this.settle(this.answered());
    else this.failed(error);
  }

  /** Ends the attempt with a network error (or a dispatch that threw). */
  failed(error: unknown): void {
    this.settle({ status: null, error: failureReason(error, this.timeoutMs), durationMs: this.elapsed() });
  }

  private answered(): PostResult {
    const status = this.status;
    return {
      status,
      error: status >= 200 && status < 300 ? null : `receiver answered ${status}`,
      durationMs: this.elapsed(),
      retryAfterMs: this.retryAfter,
    };
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  private settle(result: PostResult): void {
    if (this.result) return;
    this.result = result;
    clearTimeout(this.timer);
    this.resolve(result);
  }
}
