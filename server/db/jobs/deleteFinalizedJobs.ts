import type { Knex } from "knex";
import { run, sql } from "../sql.js";

/** Deletes up to `limit` finished jobs older than `retentionMs`; the cleaner calls it until none are left. */
export async function deleteFinalizedJobs(db: Knex, retentionMs: number, limit = 10_000): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`DELETE FROM jobs WHERE id IN (
          SELECT id FROM jobs WHERE finalized_at < now() - make_interval(secs => ${retentionMs / 1000}) LIMIT ${limit})`,
  );
  return rowCount;
}
