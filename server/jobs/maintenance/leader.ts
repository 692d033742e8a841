// One worker at a time runs the maintenance chores: the one holding a PostgreSQL advisory lock. The lock is a
// session's, so it lives on a connection of its own; when the leader stops (the lock is released) or dies
// (PostgreSQL drops the session, and its lock with it), another worker takes it at its next attempt.
import pg from "pg";
import { clientConfigFor } from "../../db/hosts.js";
import type { Logger } from "../../logger.js";

/** The advisory lock's key: any constant no other part of the system locks ("sms" + "mnt" in ASCII). */
const LEADER_LOCK_KEY = "7564851001896820";

export class Leader {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private leading = false;
  private stopped = false;
  private attempt: Promise<void> = Promise.resolve();
  /** An attempt is in progress: the next tick skips rather than queue behind it. */
  private trying = false;

  constructor(private readonly opts: { databaseUrl: string; log: Logger; retryEveryMs: number }) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.attempt = this.tryToLead();
    this.timer = setInterval(() => {
      if (!this.trying) this.attempt = this.tryToLead();
    }, this.opts.retryEveryMs);
    this.timer.unref();
  }

  /** Gives the lead up (releasing the lock at once, so another worker need not wait for a timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.attempt;
    this.leading = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Not leading: try to take the lock. Leading: check the session (and so the lock) is still there. */
  private async tryToLead(): Promise<void> {
    if (this.stopped) return;
    this.trying = true;
    try {
      if (this.leading) {
        await this.client!.query("SELECT 1");
        return;
      }
      this.client ??= await this.connect();
      const { rows } = await this.client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS locked", [LEADER_LOCK_KEY]);
      if (rows[0]!.locked && !this.stopped) {
        this.leading = true;
        this.opts.log.info("leading maintenance");
      }
    } catch (error) {
      this.lose(error);
    } finally {
      this.trying = false;
    }
  }

  private async connect(): Promise<pg.Client> {
    // Bounded, so an unreachable database cannot hold up stop() (it waits for the attempt in progress).
    const client = new pg.Client(
      await clientConfigFor(this.opts.databaseUrl, {
        application_name: "sms-platform-leader",
        connectionTimeoutMillis: 5_000,
        query_timeout: 5_000,
      }),
    );
    client.on("error", (error) => {
      if (this.client === client) this.lose(error); // an older, already abandoned session is no news
    });
    await client.connect();
    return client;
  }

  private lose(error: unknown): void {
    if (this.leading) this.opts.log.warn({ err: error }, "lost the maintenance lead");
    this.leading = false;
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => undefined);
  }
}
