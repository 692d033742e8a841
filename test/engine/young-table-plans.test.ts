// A young table (a fresh install's first burst, a benchmark) has no statistics yet. The statements that pick
// messages by key must still look each one up by the key: written as `account_id = ANY(accounts) AND id = ANY(ids)`,
// the planner walked messages_account_page_idx through the account's whole history filtering by id (2.3 ms against
// 0.11 ms for 100 of 20,000 messages), and written with the status plainly, a partial list index. Checked on the
// plans PostgreSQL chooses for the statements our code sends, before any ANALYZE (server/db/byIdFilters.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import {
  claimMessagesForSending,
  findMessages,
  returnToScheduled,
  scheduledPastValidity,
  updateStatusesWithReceipts,
  type MessageKey,
} from "../../server/db/messages/index.js";
import { scheduledToOptedOut } from "../../server/db/optOuts.js";
import { policyFacts } from "../../server/db/sendingPolicy.js";
import { useTestDatabase } from "../helpers/database.js";
import { accountClaimPlan, holdStatistics, laneClaimPlan, plansOf, summarise } from "../helpers/explain.js";

const database = useTestDatabase();
let keys: MessageKey[];
let providerIds: string[];

beforeAll(async () => {
  const { db } = database();
  await holdStatistics(db, ["jobs", "messages"]);
  const accountId = (await ensureAccount(db, "young")).id;
  await db("webhooks").insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" });
  await db.raw(
    `INSERT INTO messages (id, account_id, job_id, recipient, sender, body, status, scheduled_at, segments, encoding,
                           provider_message_id)
     SELECT gen_uuid_v7(), ?, gen_random_uuid(), '+14155550100', 'ACME', 'hi', 'scheduled', now(), 1, 'GSM-7',
            'sim-' || i
       FROM generate_series(1, 20000) i`,
    [accountId],
  );
  const rows = await db("messages").orderBy("id").limit(100).select("id", "account_id as accountId", "provider_message_id");
  keys = rows.map((r) => ({ id: r.id, accountId: r.accountId }));
  providerIds = rows.map((r) => r.provider_message_id);
});

/** The message indexes the statements `fn` sends on messages read. */
async function messageIndexes(fn: () => Promise<unknown>): Promise<string[]> {
  const plans = await plansOf(database().db, fn, (sql) => /\bmessages\b/i.test(sql));
  expect(plans.length).toBeGreaterThan(0);
  return plans.flatMap((p) => summarise(p).indexes.filter((i) => i.startsWith("messages_")));
}

describe("on a table no ANALYZE has seen, statements by key look messages up by the key", () => {
  it.each([
    ["the send claim", () => claimMessagesForSending(database().db, keys, { link: "simulator", connectorId: null })],
    ["the opt-out check", () => scheduledToOptedOut(database().db, keys)],
    ["the validity check", () => scheduledPastValidity(database().db, keys)],
    ["the sending policy's facts", () => policyFacts(database().db, keys, true)],
    ["sending → scheduled", () => returnToScheduled(database().db, keys)],
    [
      "the status change with its receipts",
      () =>
        updateStatusesWithReceipts(
          database().db,
          "failed",
          keys.map((k) => ({ messageId: k.id, accountId: k.accountId, at: new Date(), body: "{}" })),
          { event: "dlr.failed", seq: 2 },
        ),
    ],
  ])("%s", async (_, fn) => {
    const indexes = await messageIndexes(fn);
    expect(indexes).toContain("messages_pkey");
    expect(indexes.filter((i) => i !== "messages_pkey")).toEqual([]);
  });
});

describe("on a table no ANALYZE has seen, provider reports look messages up by the provider's id", () => {
  it.each([
    ["with their accounts", () => ({ providerMessageIds: providerIds, accountIds: keys.map((k) => k.accountId) })],
    ["without (a report queued by the previous release)", () => ({ providerMessageIds: providerIds })],
  ])("%s", async (_, where) => {
    const found = await findMessages(database().db, where());
    expect(found.map((m) => m.id).sort()).toEqual(keys.map((k) => k.id).sort());
    const indexes = await messageIndexes(() => findMessages(database().db, where()));
    expect(indexes).toContain("messages_carrier_key_idx");
    expect(indexes.filter((i) => i !== "messages_carrier_key_idx")).toEqual([]);
  });

  it("a report naming another account finds nothing", async () => {
    const other = (await ensureAccount(database().db, "young-other")).id;
    const found = await findMessages(database().db, { providerMessageIds: providerIds, accountIds: providerIds.map(() => other) });
    expect(found).toEqual([]);
  });
});

// The claim sets no planner settings of its own (db/jobs/functions/claimJobsV3.ts): the lane index must be the
// walk the planner picks however stale the job table's statistics are. With jobs_claim_idx still there, the
// last three took it and filtered every other lane's rows (7 ms against 1 ms per claim of 500).
describe("a burst of 20,000 due jobs on a job table whose statistics predate it is claimed by an ordered walk of the lane index", () => {
  const burst = (state = "available", runAt = "now() - interval '1 second'", n = 20_000) =>
    database().db.raw(
      `INSERT INTO jobs (id, kind, payload, run_at, max_attempts, state, locked_until, locked_by)
       SELECT gen_random_uuid(), 'send_message', '{}', ${runAt}, 3, ?, ${state === "running" ? "now() + interval '1 hour', 'w'" : "NULL, NULL"}
         FROM generate_series(1, ?)`,
      [state, n],
    );
  it.each([
    ["never analysed", async () => {}],
    ["analysed while empty", () => database().db.raw("ANALYZE jobs")],
    ["analysed with 300 due jobs", async () => (await burst("available", undefined, 300), database().db.raw("ANALYZE jobs"))],
    ["analysed while 5,000 jobs ran", async () => (await burst("running", undefined, 5000), database().db.raw("ANALYZE jobs"))],
    [
      "analysed while 5,000 jobs waited for later",
      async () => (await burst("available", "now() + interval '1 hour'", 5000), database().db.raw("ANALYZE jobs")),
    ],
  ])("%s", async (_, before) => {
    const { db } = database();
    await db.raw("TRUNCATE jobs");
    await before();
    await burst();
    const plan = await laneClaimPlan(db, "default", 500);
    expect(plan).toContain("jobs_lane_priority_claim_idx");
    expect(plan).not.toContain('"Node Type":"Sort"');
    expect(plan).not.toContain("Bitmap");
    expect(plan).not.toMatch(/"Rows Removed by Filter":[1-9]/);
  });
});

// The fair claim walks one account at a time (db/jobs/functions/fairClaim.ts): the walk must be the account
// index's, never the lane index filtered by account (33 ms a claim with 1,000 accounts when both could serve it).
describe("a burst of 20,000 due jobs of 100 accounts on a job table whose statistics predate it is claimed account by account", () => {
  const accounts = Array.from({ length: 100 }, (_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`);
  const burst = (n = 20_000) =>
    database().db.raw(
      `INSERT INTO jobs (id, kind, payload, run_at, max_attempts, account_id)
       SELECT gen_random_uuid(), 'send_message', '{}', now() - interval '1 second', 3, (?::uuid[])[1 + g % 100]
         FROM generate_series(1, ?) g`,
      [accounts, n],
    );
  it.each([
    ["never analysed", async () => {}],
    ["analysed while empty", () => database().db.raw("ANALYZE jobs")],
    [
      "analysed with 300 due jobs of one account",
      async () => {
        await database().db.raw(
          `INSERT INTO jobs (kind, payload, max_attempts, account_id) SELECT 'send_message', '{}', 3, ? FROM generate_series(1, 300)`,
          [accounts[0]],
        );
        await database().db.raw("ANALYZE jobs");
      },
    ],
  ])("%s", async (_, before) => {
    const { db } = database();
    await db.raw("TRUNCATE jobs");
    await before();
    await burst();
    const plan = await accountClaimPlan(db, accounts[7]!, 100);
    expect(plan).toContain("jobs_account_claim_idx");
    expect(plan).not.toContain("jobs_lane_priority_claim_idx");
    expect(plan).not.toContain('"Node Type":"Sort"');
    expect(plan).not.toMatch(/"Rows Removed by Filter":[1-9]/);
  });
});
