// Checks shared by the tests that run many messages through real workers.
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import type { Db } from "../../server/db/knex.js";
import { waitUntil } from "./wait.js";

/** Waits until none of `ids` is in one of `pending` (by default: not yet final). */
export async function waitUntilSettled(
  db: Db,
  ids: string[],
  timeoutMs: number,
  pending = ["scheduled", "sending", "sent"],
): Promise<void> {
  await waitUntil(
    `${ids.length} messages out of ${pending.join("/")}`,
    async () => {
      const rows = await db("messages").whereIn("id", ids).whereIn("status", pending).count({ n: "*" });
      return Number(rows[0]!.n) === 0;
    },
    timeoutMs,
    100,
  );
}

/** The messages among `ids` the provider was handed more than once (should be none). */
export async function submittedTwice(db: Db, ids: string[]): Promise<string[]> {
  const counts = await countSubmissionsByMessage(db);
  return ids.filter((id) => (counts.get(id) ?? 0) > 1);
}
