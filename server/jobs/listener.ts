// The runner's LISTEN connection (River's notifier): one dedicated connection (a pooled one cannot be held),
// re-opened with backoff when it drops. After a reconnect the runner looks at the queue, for whatever was
// inserted while it was deaf.
import pg from "pg";
import { clientConfigFor } from "../db/hosts.js";
import { JOBS_CHANNEL } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";

export class JobListener {
  private client: pg.Client | undefined;
  private stopped = false;

  constructor(
    private readonly opts: {
      databaseUrl: string;
      log: Logger;
      /** A NOTIFY arrived: its payload is the earliest run_at of the new jobs (ms), or empty for "look now". */
      onNotify: (payload: string | undefined) => void;
      onReconnect: () => void;
    },
  ) {}

  async start(): Promise<void> {
    // Several hosts (db/hosts.ts): LISTEN on the one that takes writes now, where the NOTIFYs are sent.
    const client = new pg.Client(await clientConfigFor(this.opts.databaseUrl, { application_name: "sms-platform-listener" }));
    client.on("notification", (n) => this.opts.onNotify(n.payload));
    client.on("error", (error) => {
      this.opts.log.warn({ err: error }, "LISTEN connection lost; reconnecting");
      void this.reconnect(client);
    });
    await client.connect();
    await client.query(`LISTEN ${JOBS_CHANNEL}`);
    this.client = client;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async reconnect(dead: pg.Client, delayMs = 250): Promise<void> {
    if (this.stopped || this.client !== dead) return;
    this.client = undefined;
    await dead.end().catch(() => undefined);
    while (!this.stopped) {
      try {
        await this.start();
        this.opts.onReconnect();
        return;
      } catch (error) {
        this.opts.log.warn({ err: error, delayMs }, "LISTEN reconnect failed");
        await new Promise((r) => setTimeout(r, delayMs));
        delayMs = Math.min(delayMs * 2, 5_000);
      }
    }
  }
}
