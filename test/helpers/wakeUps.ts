// The jobs channel heard from a test: every NOTIFY payload the workers would get, from the moment of listening.
import pg from "pg";
import { JOBS_CHANNEL } from "../../server/db/jobs/index.js";
import { waitUntil } from "./wait.js";

export interface WakeUps {
  /** Payloads heard so far, in order. */
  heard: string[];
  /** Resolves once every NOTIFY committed before the call has been heard (a marker sent after it has). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

export async function listenForWakeUps(url: string): Promise<WakeUps> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const heard: string[] = [];
  client.on("notification", (n) => heard.push(n.payload ?? ""));
  await client.query(`LISTEN ${JOBS_CHANNEL}`);
  let markers = 0;
  return {
    heard,
    async drained() {
      const marker = `marker-${++markers}`;
      await client.query("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, marker]);
      await waitUntil("the marker notification", async () => heard.includes(marker) || undefined);
      heard.splice(heard.indexOf(marker), 1);
    },
    close: () => client.end(),
  };
}
