import type { JobKind } from "./kinds.js";

/**
 * A claim's lanes: receipt deliveries in `receipts`, every other kind in `default`, so a backlog of one never
 * sits in front of the other (docs/ARCHITECTURE.md, "Lanes"). This map is the rule; the SQL below is made from
 * it, and the claim index jobs_lane_priority_claim_idx is built on exactly that SQL
 * (test/engine/job-lanes.test.ts compares the two, so a change here without a migration fails).
 */
export type JobLane = "default" | "receipts";

export const LANE_OF_KIND: Readonly<Record<JobKind, JobLane>> = {
  send_message: "default",
  provider_report: "default",
  campaign_fanout: "default",
  deliver_receipt: "receipts",
  smpp_receipt: "default",
};

export const laneOf = (kind: JobKind): JobLane => LANE_OF_KIND[kind];

/** The lane of a jobs row as an SQL expression over its `kind` column: one WHEN per kind outside `default`. */
export const JOB_LANE_SQL = `(CASE ${Object.entries(LANE_OF_KIND)
  .filter(([, lane]) => lane !== "default")
  .map(([kind, lane]) => `WHEN kind = '${kind}' THEN '${lane}'`)
  .join(" ")} ELSE 'default' END)`;
