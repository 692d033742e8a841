// The plan PostgreSQL chooses for the statements a piece of our code sends: the calls are captured as knex
// sends them (text and parameters), then EXPLAINed, so a test checks the real statement, not a copy of it.
import type pg from "pg";
import { LANE_CLAIM_SELECT } from "../../server/db/jobs/functions/claimJobsV3.js";
import { accountJobs } from "../../server/db/jobs/functions/fairClaim.js";
import type { Db } from "../../server/db/knex.js";

export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** Runs `fn`, recording every statement it sends; returns the plans of those matching `pick`. */
export async function plansOf(db: Db, fn: () => Promise<unknown>, pick: (sql: string) => boolean = () => true): Promise<PlanNode[]> {
  const sent: { sql: string; bindings: unknown[] }[] = [];
  const record = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on("query", record);
  try {
    await fn();
  } finally {
    db.off("query", record);
  }
  // knex reports the text with $n placeholders, as it sends it: EXPLAIN it over a connection of the pool as is.
  const conn = (await db.client.acquireConnection()) as pg.ClientBase;
  try {
    const plans: PlanNode[] = [];
    for (const q of sent.filter((s) => pick(s.sql))) {
      const { rows } = await conn.query(`EXPLAIN (FORMAT JSON) ${q.sql}`, q.bindings);
      plans.push(rows[0]["QUERY PLAN"][0].Plan);
    }
    return plans;
  } finally {
    await db.client.releaseConnection(conn);
  }
}

export function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/** The indexes a plan reads, and whether it sorts or reads a whole table. */
export function summarise(plan: PlanNode): { indexes: string[]; sorts: boolean; seqScans: string[] } {
  const nodes = nodesOf(plan);
  return {
    indexes: nodes.flatMap((n) => (n["Index Name"] ? [n["Index Name"]] : [])),
    sorts: nodes.some((n) => n["Node Type"] === "Sort" || n["Node Type"] === "Incremental Sort"),
    seqScans: nodes.flatMap((n) => (n["Node Type"] === "Seq Scan" ? [n["Relation Name"]!] : [])),
  };
}

/**
 * The plan (EXPLAIN ANALYZE, JSON) of a lane claim's inner select as claim_jobs_v3 runs it: the session's own
 * planner settings, none of its own (db/jobs/functions/claimJobsV3.ts). The text is taken from the function's
 * definition, so the test checks the statement the claim runs.
 */
export async function laneClaimPlan(db: Db, lane: string, limit: number): Promise<string> {
  const { rows } = await db.raw<{ rows: { "QUERY PLAN": unknown }[] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${LANE_CLAIM_SELECT.replaceAll("p_lane", `'${lane}'`).replaceAll("p_limit", String(limit))}`,
  );
  return JSON.stringify(rows[0]!["QUERY PLAN"]);
}

/** The plan (EXPLAIN ANALYZE, JSON) of the fair claim's walk of one account's due jobs (claim_jobs_v6). */
export async function accountClaimPlan(db: Db, accountId: string, limit: number): Promise<string> {
  const { rows } = await db.raw<{ rows: { "QUERY PLAN": unknown }[] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${accountJobs(`'${accountId}'::uuid`, String(limit))}`,
  );
  return JSON.stringify(rows[0]!["QUERY PLAN"]);
}

/**
 * Keeps autovacuum off `tables` in this test's database, so the statistics a plan test sets up are the ones the
 * planner reads. An autovacuum pass in the middle of a test's burst (the suite runs many databases at once) left
 * the planner believing the job table held no rows, and the fair claim then tied the account index with the lane
 * index on cost and took either.
 */
export async function holdStatistics(db: Db, tables: string[]): Promise<void> {
  for (const table of tables) await db.raw("ALTER TABLE ?? SET (autovacuum_enabled = false)", [table]);
}
