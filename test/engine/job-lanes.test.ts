// The kind → lane rule lives in db/jobs/lanes.ts; the claim index and the claims (claim_jobs_v3, claim_jobs_v6)
// are built on the SQL made from it. Changing the rule without a migration that rebuilds them fails here.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { claimJobs, insertJobs, JOB_LANE_SQL, LANE_OF_KIND, type JobKind } from "../../server/db/jobs/index.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

describe("job lanes", () => {
  it("jobs_lane_priority_claim_idx is built on exactly the lane SQL made from LANE_OF_KIND", async () => {
    const { db } = database();
    // The index's own text as PostgreSQL prints it, against the same expression on a scratch table of the same
    // shape, printed the same way.
    await db.raw("CREATE TEMP TABLE lane_probe (LIKE jobs)");
    await db.raw(
      `CREATE INDEX lane_probe_idx ON lane_probe (${JOB_LANE_SQL}, priority, run_at, id) WHERE state IN ('available', 'retryable')`,
    );
    const { rows } = await db.raw<{ rows: { name: string; def: string }[] }>(
      `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def FROM pg_class c
        WHERE c.relname IN ('jobs_lane_priority_claim_idx', 'lane_probe_idx')`,
    );
    const def = (name: string) => rows.find((r) => r.name === name)!.def.replace(/^CREATE INDEX \S+ ON \S+/, "");
    expect(def("lane_probe_idx")).toBe(def("jobs_lane_priority_claim_idx"));
  });

  it("a lane's claim takes the kinds the rule puts in it, and no other", async () => {
    const { db } = database();
    const account = await ensureAccount(db, `lanes-${randomUUID()}`);
    const kinds = Object.keys(LANE_OF_KIND) as JobKind[];
    await db.transaction((tx) =>
      insertJobs(
        tx,
        kinds.map((kind) => ({ kind, payload: {} as never, runAt: new Date(Date.now() - 1000), accountId: account.id })),
      ),
    );
    for (const lane of new Set(Object.values(LANE_OF_KIND))) {
      const { jobs } = await claimJobs(db, "w", 100, 30_000, lane);
      expect(jobs.map((j) => j.kind).sort()).toEqual(kinds.filter((k) => LANE_OF_KIND[k] === lane).sort());
    }
  });
});
