import type { Knex } from "knex";

/** Heartbeat: pushes the lease of the jobs this worker is running; returns the ids it still holds. */
export async function extendLeases(db: Knex, workerId: string, ids: string[], leaseMs: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db("jobs")
    .whereIn("id", ids)
    .where({ state: "running", locked_by: workerId })
    .update({ locked_until: db.raw("now() + make_interval(secs => ?)", [leaseMs / 1000]) })
    .returning("id");
  return rows.map((r: { id: string }) => r.id);
}
