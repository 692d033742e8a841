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

/** What went wrong with an attempt that got no answer: a timeout, or the network's error code. */
function failureReason(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const timedOut =
    e.name === "TimeoutError" || e.name === "AbortError" || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT";
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

export class ReceiptClient {
  private readonly agent: Agent;

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
   * with its timer and an async resource per POST, a quarter of a worker's CPU in bench:dispatch
   * (bench/NOTES.md). One timer bounds the whole attempt; undici's header and body timeouts stay as well.
   */
  post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch (error) {
      return Promise.resolve({ status: null, error: failureReason(error, this.opts.timeoutMs), durationMs: 0 });
    }
    if (!this.opts.allowPrivate) {
      if (target.protocol !== "https:") return Promise.resolve({ status: null, error: "webhook URL is not https", durationMs: 0 });
      const host = target.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) && !isPublicAddress(host))
        return Promise.resolve({ status: null, error: `address ${host} is not public`, durationMs: 0 });
    }
    const { timeoutMs } = this.opts;
    return new Promise<PostResult>((resolve) => {
      let controller: Dispatcher.DispatchController | undefined;
      let result: PostResult | undefined;
      let status = 0;
      let retryAfter: number | undefined;
      let received = 0;
      const settle = (r: PostResult) => {
        if (result) return;
        result = r;
        clearTimeout(timer);
        resolve(r);
      };
      const answered = () => ({
        status,
        error: status >= 200 && status < 300 ? null : `receiver answered ${status}`,
        durationMs: elapsed(),
        retryAfterMs: retryAfter,
      });
      const timer = setTimeout(() => {
        settle({ status: null, error: `no answer within ${timeoutMs} ms`, durationMs: elapsed() });
        controller?.abort(new Error("timed out"));
      }, timeoutMs);
      try {
        this.agent.dispatch(
          {
            origin: target.origin,
            path: target.pathname + target.search,
            method: "POST",
            body,
            headers,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          },
          {
            onRequestStart(c) {
              controller = c;
              // Timed out while it waited for a connection: it goes no further.
              if (result) c.abort(new Error("timed out"));
            },
            onResponseStart(_c, statusCode, responseHeaders) {
              if (statusCode < 200) return; // informational: the answer is still to come
              status = statusCode;
              if (statusCode === 429 || statusCode === 503) retryAfter = retryAfterMs(responseHeaders["retry-after"]);
            },
            onResponseData(c, chunk) {
              // The answer is its status; a receiver that sends more than this is cut off, its status kept.
              received += chunk.length;
              if (received > MAX_BODY_BYTES) {
                settle(answered());
                c.abort(new Error("response body too large"));
              }
            },
            onResponseEnd() {
              settle(answered());
            },
            onResponseError(_c, error) {
              // Once the status is in, it is the answer, whatever becomes of the body.
              settle(status > 0 ? answered() : { status: null, error: failureReason(error, timeoutMs), durationMs: elapsed() });
            },
          },
        );
      } catch (error) {
        settle({ status: null, error: failureReason(error, timeoutMs), durationMs: elapsed() });
      }
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
