// When each key was last used (GET /api/v1/key's `lastUsedAt`): remembered in memory on the request's path
// and written in one statement for every key seen, every FLUSH_MS, so that no request pays a write for it.
import { recordKeyUses } from "./apiKeysTable.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";

const FLUSH_MS = 30_000;

export class KeyUsage {
  private seenAt = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS).unref();
  }

  seen(keyId: string): void {
    this.seenAt.set(keyId, new Date());
  }

  /** Writes the uses seen since the last flush; a failed write is logged and its uses kept for the next. */
  async flush(): Promise<void> {
    const uses = this.seenAt;
    if (uses.size === 0) return;
    this.seenAt = new Map();
    try {
      await recordKeyUses(this.db, uses);
    } catch (error) {
      for (const [keyId, at] of uses) if (!this.seenAt.has(keyId)) this.seenAt.set(keyId, at);
      this.log.warn({ err: error, keys: uses.size }, "recording when keys were last used failed; retried at the next flush");
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
