import { deleteFinalizedJobs } from "../../db/jobs/index.js";
import type { Db } from "../../db/knex.js";
import { chore } from "./chore.js";

/** Deletes failed and cancelled jobs after `retentionMs`, in bounded statements until none is left. */
export const deleteFinalizedJobsChore = (db: Db, retentionMs: number, everyMs = 60_000) =>
  chore("delete finalized jobs", everyMs, async () => {
    let total = 0;
    for (let n = -1; n !== 0; total += n) n = await deleteFinalizedJobs(db, retentionMs);
    return total;
  });
