import { setTimeout as sleep } from "node:timers/promises";
import { isTransient } from "../db/errors.js";
import type { Logger } from "../logger.js";

/**
 * Runs `write` (a statement that records what jobs did: their completion, a receipt's finish) again while it
 * fails for a transient reason (db/errors.ts, isTransient), up to `attempts` times with a doubling pause from
 * `baseMs`. Recording again is safe (each such statement touches only rows this worker still holds); running
 * the job again is not: a receipt already answered 200 would be posted twice (issue: deadlocks between the
 * lease heartbeat and completions). Meanwhile the jobs stay in hand, so the heartbeat keeps their leases.
 */
export async function retryTransient<T>(
  write: () => Promise<T>,
  opts: { what: string; log: Logger; attempts?: number; baseMs?: number },
): Promise<T> {
  const attempts = opts.attempts ?? 8;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error;
      opts.log.warn({ err: error, attempt }, `${opts.what} failed for a transient reason; writing it again`);
      await sleep(Math.min((opts.baseMs ?? 20) * 2 ** (attempt - 1), 2_000));
    }
  }
}
