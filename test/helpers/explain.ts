// The plan PostgreSQL chooses for the statements a piece of our code sends: the calls are captured as knex
// sends them (text and parameters), then EXPLAINed, so a test checks the real statement, not a copy of it.
import type pg from "pg";
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
