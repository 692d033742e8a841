// How many exports each account streams at once from this process. Each export holds a database connection
// while it runs (http/stream.ts), so a client cannot hold the pool: beyond EXPORTS_PER_ACCOUNT it is 429.
import { HttpError } from "./problem.js";

/** The exports each account is streaming from this process. */
export class ExportSlots {
  private readonly running = new Map<string, number>();

  constructor(private readonly perAccount: number) {}

  /** Takes a slot for the account, or refuses with 429; the returned function gives it back (once). */
  take(accountId: string): () => void {
    const now = this.running.get(accountId) ?? 0;
    if (now >= this.perAccount)
      throw new HttpError(
        "rate_limited",
        `This account is already streaming ${now} exports (at most ${this.perAccount} at once); retry when one has finished.`,
        { headers: { "Retry-After": "5" } },
      );
    this.running.set(accountId, now + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.running.get(accountId) ?? 1) - 1;
      if (left > 0) this.running.set(accountId, left);
      else this.running.delete(accountId);
    };
  }
}
