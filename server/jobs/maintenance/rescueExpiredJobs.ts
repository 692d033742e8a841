import { rescueExpiredJobs } from "../../db/jobs/index.js";
import type { Db } from "../../db/knex.js";
import { chore } from "./chore.js";

/** Jobs whose worker died (its lease expired) become claimable again; run at a third of the lease. */
export const rescueExpiredJobsChore = (db: Db, everyMs = 5_000) => chore("rescue expired jobs", everyMs, () => rescueExpiredJobs(db));
