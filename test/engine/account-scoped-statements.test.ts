// Every statement of an account's work names its account (docs/SCALING.md, "Past one server: Citus"): under
// Citus each table with an account_id column is distributed by it, and a statement that reads or writes such a
// table without constraining account_id is multi-shard or unroutable (and a join between two of them is refused
// unless they meet on account_id). Checked on what our code really sends: a whole run of the product (API
// calls, sends, receipts, a campaign, a cancel, an inbound STOP, a redelivery) is recorded, and each statement's
// plan is read. Every scan of an account table must constrain account_id, itself or through the join that
// feeds it; every INSERT into one must write account_id. The statements that cannot name an account are listed
// below, each with why; anything else unscoped fails here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanNode } from "../helpers/explain.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

// Rate limits on (high): authentication then goes through its one statement, as in production.
const server = useTestServer({ ...fastWorkerConfig, webhookRetryBaseMs: 50, rateLimitPerSecond: 10_000, unauthenticatedPerSecond: 10_000 });
useTestWorker(server);
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/**
 * Statements that cannot name an account, by what they start with (normalised: one space, lower case). Each is
 * fine on one PostgreSQL; docs/SCALING.md says how each runs under Citus.
 */
const WITHOUT_ACCOUNT: { starts: string; why: string }[] = [
  // Nothing names the account yet: it is what these find.
  { starts: "with k as ( select k.key_id, k.kind, k.account_id", why: "authentication: the key's account, by the key's id" },
  { starts: 'select "account_id" as "accountid" from "numbers"', why: "inbound routing: the owner of a destination number" },
  // A carrier's receipt names its own id only, not the account (a lookup table by carrier id under Citus).
  { starts: "delete from unmatched_receipts r where r.job_kind is not null", why: "kept receipts whose carrier id is now known" },
  // The runner's bookkeeping of the jobs it holds, by job id and lease (the claim itself is claim_jobs).
  { starts: "delete from jobs where id in ( select id from jobs where id = any", why: "completing held jobs" },
  { starts: "update jobs set state = case", why: "failing held jobs" },
  { starts: "with s as ( update jobs j set state = 'available'", why: "snoozing held jobs" },
  { starts: "update jobs j set state = 'available'", why: "snoozing held jobs" },
  { starts: 'update "jobs" set "state" = ?, "attempt" = attempt - 1', why: "releasing held jobs at shutdown" },
  { starts: "with locked as ( select id from jobs where id = any", why: "extending the leases of held jobs" },
  // The same for receipt deliveries handed to their worker without a job (their lease is their handoff's, or
  // a previous release's delivery row's).
  { starts: "with d as ( select id, handoff_id from webhook_deliveries where id = any", why: "extending the leases of handed deliveries" },
  {
    starts: "with h as ( delete from receipt_handoffs h where",
    why: "handing over deliveries at shutdown, rescuing expired ones",
  },
  // Maintenance and metrics: every account by nature (under Citus, run on every shard in parallel).
  { starts: "select (select coalesce(extract(epoch from now() - min(run_at))", why: "queue health metrics" },
  { starts: "select priority, count(*)::int as waiting", why: "throughput backlog metrics" },
  { starts: "select exists (select 1 from throttled_sends)", why: "the throughput pacer's idle check" },
  { starts: "update jobs j set connector_id = null", why: "letting go of jobs pinned to a connector bound nowhere" },
  { starts: "with moved as ( delete from message_count_deltas", why: "folding every account's counted events into the report counts" },
  { starts: "with moved as ( delete from spend_deltas", why: "folding every account's spend into the spend counts" },
  // Every worker looks for batched webhooks (of any account) with a batch due; what it then reads is by account.
  { starts: "with due as ( select w.id from webhooks w", why: "claiming the batches due of every account's batched webhooks" },
  {
    starts: "update webhooks set batch_held_by = null, batch_held_until = null where batch_held_by",
    why: "a stopping worker ending its batch holds",
  },
  // Keys by their ids (an operator key has no account).
  { starts: "update api_keys k set last_used_at", why: "when keys were last used, by the keys' ids" },
  // A maintenance chore over every account; whether its timer fires within the run is chance, so it is exempt
  // by name rather than left to fail the test now and then.
  {
    starts:
      'select distinct "x"."account_id" as "accountid", "x"."message_id" as "messageid", "x"."webhook_id" as "webhookid" from "webhook_deliveries" as "x" where "x"."parked"',
    why: "maintenance: releasing every account's orphaned parked receipts",
  },
  { starts: 'select "k"."key_id" as "keyid", "k"."kind"', why: "GET /api/v1/key: the caller's own key, by its id" },
];

const normalise = (sql: string) => sql.replace(/\s+/g, " ").trim().toLowerCase();

/** Plan nodes with their ancestors' join conditions (a scan may be constrained by the join that feeds it). */
function* scans(
  node: PlanNode & Record<string, unknown>,
  joins: string[] = [],
): Generator<{ node: Record<string, unknown>; joins: string[] }> {
  if (node["Relation Name"] && node["Node Type"] !== "ModifyTable") yield { node, joins };
  const here = ["Hash Cond", "Merge Cond", "Join Filter"].map((k) => node[k]).filter((c): c is string => typeof c === "string");
  for (const child of (node.Plans ?? []) as (PlanNode & Record<string, unknown>)[]) yield* scans(child, [...joins, ...here]);
}

/** What is wrong with one statement's plan: the account tables it reads without constraining account_id. */
function unscoped(sql: string, plan: PlanNode, accountTables: Set<string>): string[] {
  const problems: string[] = [];
  for (const { node, joins } of scans(plan as PlanNode & Record<string, unknown>)) {
    const table = node["Relation Name"] as string;
    if (!accountTables.has(table)) continue;
    const alias = (node.Alias as string | undefined) ?? table;
    const own = ["Index Cond", "Filter", "Recheck Cond"].map((k) => node[k]).filter((c): c is string => typeof c === "string");
    // In the plan (its own conditions, or the join's), or in the text when the plan hides it (a hashed subplan
    // shows no keys).
    const scoped =
      own.some((c) => /(^|[^.\w])account_id\b/.test(c) || c.includes(`${alias}.account_id`)) ||
      joins.some((c) => c.includes(`${alias}.account_id`)) ||
      new RegExp(`\\b${alias}\\.account_id\\s*(=|in\\b)`, "i").test(sql);
    if (!scoped) problems.push(`reads ${table} (${alias}) without account_id`);
  }
  // An INSERT into an account table writes account_id (its distribution column).
  for (const m of normalise(sql).matchAll(/insert into "?(\w+)"? \(([^)]*)\)/g)) {
    if (accountTables.has(m[1]!) && !/\baccount_id\b/.test(m[2]!)) problems.push(`inserts into ${m[1]} without account_id`);
  }
  return problems;
}

async function runTheProduct(a: TestAccount, b: TestAccount): Promise<void> {
  const post = async (who: TestAccount, path: string, body: unknown, status: number) => {
    const res = await who.request("POST", path, body);
    expect(res.status, `${path}: ${await res.clone().text()}`).toBe(status);
    return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
  };
  const hook = await post(a, "/api/v1/webhooks", { name: "receipts", url: receiver.url }, 201);
  await post(b, "/api/v1/webhooks", { name: "receipts", url: receiver.url }, 201);
  const group = await post(a, "/api/v1/contacts/groups", { name: "all" }, 201);
  for (const phone of ["+14155550301", "+14155550302", "+14155550303"])
    await post(a, "/api/v1/contacts", { phone, firstName: "Ann", groupId: group!.groupId }, 201);
  expect((await a.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "America/New_York" })).status).toBe(200);
  await post(a, "/api/v1/numbers", { phoneNumber: "+14155550390" }, 201);

  // Due in 2 s, read at each request (a loaded machine may take a while between them).
  const soon = () => new Date(Date.now() + 2_000).toISOString();
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const due = await post(a, "/api/v1/scheduler/schedule", { to: "+14155550311", from: "ACME", body: "due", scheduledAt: soon() }, 201);
  await post(b, "/api/v1/scheduler/schedule", { to: "+14155550312", from: "ACME", body: "due", scheduledAt: soon() }, 201);
  const undelivered = await post(
    a,
    "/api/v1/scheduler/schedule",
    { to: "+14155550002", from: "ACME", body: "x", scheduledAt: soon() },
    201,
  );
  const cancelled = await post(a, "/api/v1/scheduler/schedule", { to: "+14155550313", from: "ACME", body: "x", scheduledAt: later }, 201);
  expect((await a.request("DELETE", `/api/v1/scheduler/cancel/${cancelled!.messageId}`)).status).toBe(200);
  const campaign = await post(
    a,
    "/api/v1/campaigns",
    { name: "c", message: "Hi {{firstName}}", type: "instant", groupId: group!.groupId },
    201,
  );
  const scheduledCampaign = await post(
    a,
    "/api/v1/campaigns",
    { name: "later", message: "x", type: "scheduled", scheduledAt: later, recipients: ["+14155550321"] },
    201,
  );
  expect((await a.request("POST", `/api/v1/campaigns/${scheduledCampaign!.campaignId}/cancel`)).status).toBe(200);
  // An opt-out by keyword, and one by the API for a number a message is already scheduled to (failed at send time).
  await post(a, "/api/v1/simulator/inbound", { from: "+14155550331", to: "+14155550390", body: "STOP" }, 202);
  await post(a, "/api/v1/scheduler/schedule", { to: "+14155550332", from: "ACME", body: "x", scheduledAt: soon() }, 201);
  expect([200, 201]).toContain((await a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent("+14155550332")}`)).status);

  await waitUntil("every message final and its receipts posted", async () => {
    const accounts = [a.accountId, b.accountId];
    const rows = await server()
      .db("messages")
      .whereIn("account_id", accounts)
      .whereIn("status", ["scheduled", "sending", "sent"])
      .whereNot({ body: "x" })
      .count({ n: "*" });
    const pending = await server().db("webhook_deliveries").whereIn("account_id", accounts).where({ status: "pending" }).count({ n: "*" });
    return Number(rows[0]!.n) === 0 && Number(pending[0]!.n) === 0;
  });
  for (const id of [due!.messageId, undelivered!.messageId]) expect((await a.request("GET", `/api/v1/messages/${id}`)).status).toBe(200);
  expect((await a.request("GET", "/api/v1/messages?limit=5")).status).toBe(200);
  expect((await a.request("GET", `/api/v1/campaigns/${campaign!.campaignId}`)).status).toBe(200);
  const deliveries = await a.request("GET", `/api/v1/webhooks/${hook!.webhookId}/deliveries?limit=5`);
  const first = ((await deliveries.json()) as { data: { deliveryId: string }[] }).data[0]!;
  expect((await a.request("POST", `/api/v1/webhooks/${hook!.webhookId}/deliveries/${first.deliveryId}/redeliver`)).status).toBe(202);
  await receiver.waitFor("the redelivery", (all) => all.filter((r) => r.headers["webhook-id"] === first.deliveryId).length >= 2);
}

describe("every statement of an account's work names its account", () => {
  it("over a whole run of the product, every read of an account table constrains account_id and every insert writes it", async () => {
    const { db } = server();
    const a = await server().account();
    const b = await server().account();
    const accountTables = new Set<string>(
      (
        await db("information_schema.columns")
          .where({ column_name: "account_id", table_schema: db.raw("current_schema()") })
          .pluck("table_name")
      ).filter((t: string) => t !== "accounts"),
    );
    // The tables this test holds to the rule: every one a sharded deployment distributes by account.
    expect([...accountTables].sort()).toEqual(
      expect.arrayContaining(["campaign_recipients", "campaigns", "jobs", "messages", "webhook_deliveries", "webhooks"]),
    );

    const sent: { sql: string; bindings: unknown[] }[] = [];
    const record = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    db.on("query", record);
    try {
      await runTheProduct(a, b);
    } finally {
      db.off("query", record);
    }
    // Each distinct statement's plan, EXPLAINed with the parameters it was sent with.
    const seen = new Map<string, { sql: string; plan: PlanNode }>();
    const conn = await db.client.acquireConnection();
    try {
      for (const q of sent) {
        const key = normalise(q.sql);
        if (!/^(select|insert|update|delete|with)\b/.test(key) || seen.has(key)) continue;
        const { rows } = await conn.query(`EXPLAIN (FORMAT JSON) ${q.sql}`, q.bindings);
        seen.set(key, { sql: q.sql, plan: rows[0]["QUERY PLAN"][0].Plan });
      }
    } finally {
      await db.client.releaseConnection(conn);
    }

    const failures: string[] = [];
    const used = new Set<string>();
    for (const [key, { sql, plan }] of seen) {
      const problems = unscoped(sql, plan, accountTables);
      if (problems.length === 0) continue;
      const exempt = WITHOUT_ACCOUNT.find((e) => key.startsWith(e.starts));
      if (exempt) used.add(exempt.starts);
      else failures.push(`${problems.join("; ")}:\n    ${key.slice(0, 300)}`);
    }
    expect(seen.size).toBeGreaterThan(40);
    expect(failures, failures.join("\n")).toEqual([]);
    // The exemptions are real statements (those this run does not reach are the runner's failure paths and
    // the pacer's): authentication, inbound routing and completing jobs are among them.
    expect([...used]).toEqual(expect.arrayContaining([WITHOUT_ACCOUNT[0]!.starts, WITHOUT_ACCOUNT[1]!.starts, WITHOUT_ACCOUNT[3]!.starts]));
  });
});
