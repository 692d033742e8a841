// Posts receipts over a keep-alive connection pool (undici). Redirects are never followed. Unless private
// addresses are allowed, every address is checked when the connection is made: the lookup resolves the
// host, drops non-public answers and pins the connection to a public one, so a name that resolved to a
// public address at registration and to 127.0.0.1 now (DNS rebinding) cannot reach an internal host.
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { Agent, request } from "undici";
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

  /** One attempt; never throws. */
  async post(url: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = new URL(url);
      if (!this.opts.allowPrivate) {
        if (target.protocol !== "https:") return { status: null, error: "webhook URL is not https", durationMs: 0 };
        const host = target.hostname.replace(/^\[|\]$/g, "");
        if (isIP(host) && !isPublicAddress(host)) return { status: null, error: `address ${host} is not public`, durationMs: 0 };
      }
      const res = await request(target, {
        method: "POST",
        body,
        headers,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return {
        status: res.statusCode,
        error: ok ? null : `receiver answered ${res.statusCode}`,
        durationMs: elapsed(),
        retryAfterMs: res.statusCode === 429 || res.statusCode === 503 ? retryAfterMs(res.headers["retry-after"]) : undefined,
      };
    } catch (error) {
      const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
      const timedOut =
        e.name === "TimeoutError" || e.name === "AbortError" || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT";
      const reason = timedOut
        ? `no answer within ${this.opts.timeoutMs} ms`
        : (e.cause?.code ?? e.code ?? e.cause?.message ?? e.message ?? "request failed");
      return { status: null, error: reason, durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
