// What the alerting rules (ops/alerts.yml) watch: every metric a rule names is exported on /metrics, and the
// database gauges report what the job table holds.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { SmppConnection } from "../../server/providers/smpp/connection.js";
import { registerSmppMetrics } from "../../server/providers/smpp/smppMetrics.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const rulesFile = resolve(import.meta.dirname, "../../ops/alerts.yml");
const PROMQL_WORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset"]);

/** The metric names in a PromQL expression: identifiers that are not functions, keywords, labels or strings. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = [...bare.matchAll(/(?<![\w:.])[a-zA-Z_:][\w:]*(?![\w:])(?!\s*\()/g)].map((m) => m[0]);
  return names.filter((n) => !PROMQL_WORDS.has(n) && !/^\d/.test(n));
}

async function scrape(): Promise<string> {
  return (await fetch(`${server().baseUrl}/metrics`)).text();
}

function gauge(text: string, name: string): number {
  const match = text.match(new RegExp(`^${name} (\\S+)$`, "m"));
  if (!match) throw new Error(`${name} not exported`);
  return Number(match[1]);
}

describe("alerting rules and the metrics they use", () => {
  it("every metric a rule names is exported (histograms by their _count/_sum/_bucket series)", async () => {
    const { groups } = parse(readFileSync(rulesFile, "utf8")) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const named = new Set(groups.flatMap((g) => g.rules.flatMap((r) => metricNames(r.expr))));
    expect([...named].sort()).toEqual([
      "http_request_duration_seconds_count",
      "smpp_bound",
      "sms_connector_up",
      "sms_database_up",
      "sms_oldest_due_message_seconds",
      "sms_receipt_deliveries_given_up_last_hour",
      "sms_receipt_deliveries_retrying",
      "sms_smpp_client_oldest_waiting_seconds",
      "sms_throughput_oldest_waiting_seconds",
    ]);
    // smpp_bound exists in a process whose provider is SMPP (test/smpp/smpp-provider.test.ts scrapes it over a
    // real bind); here only its registration is needed, so a connection-shaped value stands in.
    registerSmppMetrics({ state: "bound", inFlight: 0 } as unknown as SmppConnection);
    await fetch(`${server().baseUrl}/healthz`); // one request, so the HTTP histogram has a series
    const exported = new Set([...(await scrape()).matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{| )/gm)].map((m) => m[1]));
    for (const name of named) expect(exported.has(name), `${name} is not on /metrics`).toBe(true);
  });

  it("the database gauges report the oldest due send job and the failing receipts", async () => {
    const { db } = server();
    const before = await scrape();
    expect(gauge(before, "sms_database_up")).toBe(1);
    expect(gauge(before, "sms_oldest_due_message_seconds")).toBe(0);
    expect(gauge(before, "sms_receipt_deliveries_retrying")).toBe(0);
    expect(gauge(before, "sms_receipt_deliveries_given_up_last_hour")).toBe(0);

    // No worker runs here: a send job due two minutes ago waits, one receipt is retrying, one was given up.
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await db("jobs").insert([
      { id: randomUUID(), kind: "send_message", payload: {}, run_at: twoMinutesAgo },
      { id: randomUUID(), kind: "send_message", payload: {}, run_at: new Date(Date.now() + 3_600_000) },
      { id: randomUUID(), kind: "deliver_receipt", payload: {}, state: "retryable", attempt: 1, max_attempts: 5 },
      { id: randomUUID(), kind: "deliver_receipt", payload: {}, state: "discarded", attempt: 5, max_attempts: 5, finalized_at: new Date() },
    ]);
    const after = await scrape();
    expect(gauge(after, "sms_oldest_due_message_seconds")).toBeGreaterThanOrEqual(120);
    expect(gauge(after, "sms_receipt_deliveries_retrying")).toBe(1);
    expect(gauge(after, "sms_receipt_deliveries_given_up_last_hour")).toBe(1);
  });

  it("the throughput gauges count the messages waiting for a cap, per priority, and the oldest one's wait", async () => {
    const { db } = server();
    const waiting = (text: string, name: string, priority: string) => gauge(text, `${name}\\{priority="${priority}"\\}`);
    const before = await scrape();
    for (const p of ["high", "normal", "low"]) {
      expect(waiting(before, "sms_throughput_waiting_messages", p)).toBe(0);
      expect(waiting(before, "sms_throughput_oldest_waiting_seconds", p)).toBe(0);
    }
    // Two high messages waiting (one due 90 s ago), one low already paid for its slot (not waiting any more).
    const accountId = randomUUID();
    const row = (priority: number, secondsAgo: number, paid = false) => ({
      message_id: randomUUID(),
      account_id: accountId,
      priority,
      scheduled_at: new Date(Date.now() - secondsAgo * 1000),
      segments: 1,
      released_at: paid ? new Date() : null,
      send_at: paid ? new Date() : null,
    });
    await db("throttled_sends").insert([row(0, 90), row(0, 5), row(2, 30, true)]);
    const after = await scrape();
    expect(waiting(after, "sms_throughput_waiting_messages", "high")).toBe(2);
    expect(waiting(after, "sms_throughput_oldest_waiting_seconds", "high")).toBeGreaterThanOrEqual(90);
    expect(waiting(after, "sms_throughput_waiting_messages", "low")).toBe(0);
    expect(waiting(after, "sms_throughput_oldest_waiting_seconds", "normal")).toBe(0);
  });
});
