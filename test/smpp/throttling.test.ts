// ESME_RTHROTTLED / ESME_RMSGQFUL against an SMSC started here on 127.0.0.1 (test/helpers/smsc.ts), through a
// real worker: the link slows down and the throttled submit is written again in its place, so the SMSC takes
// the messages in the order they were claimed; nothing is failed or counted as a failure; a later segment is
// retried alone (the message is not resent from its first part); and a message the SMSC keeps throttling goes
// back to `scheduled` (cancellable) after SMPP_THROTTLE_MAX_WAIT_MS. Which submits are throttled is decided by
// count, never by time, and the tests wait for states, not for fixed times.
import type { PDU } from "smpp";
import { register } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import type { Config } from "../../server/config.js";
import { notifyWorkers } from "../../server/db/jobs/index.js";
import { createLogger } from "../../server/logger.js";
import type { SmppProvider } from "../../server/providers/smpp/provider.js";
import type { Worker } from "../../server/worker.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { startSmsc, type Smsc, startSmppTestWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const THROTTLED = 0x58;
const MSGQFUL = 0x14;
const MAX_PER_SECOND = 50;

let smsc: Smsc;
let worker: Worker | undefined;
const server = useTestServer({
  ...fastWorkerConfig,
  provider: "smpp",
  smppMaxInFlight: 3,
  smppMaxPerSecond: MAX_PER_SECOND,
  smppThrottlePauseMs: 50,
  // Far above what these tests throttle for: only the last test, on a worker of its own, reaches its bound.
  smppThrottleMaxWaitMs: 60_000,
});

async function start(config: Partial<Config> = {}): Promise<SmppProvider> {
  const s = server();
  worker = await startSmppTestWorker({
    db: s.db,
    databaseUrl: s.url,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
    config: { ...s.config, smppUrl: smsc.url, ...config },
  });
  const provider = worker.provider as SmppProvider;
  await waitUntil("SMPP bound", async () => provider.connection.state === "bound");
  return provider;
}

beforeAll(async () => {
  smsc = await startSmsc();
  await start();
});
afterAll(async () => {
  await worker?.stop(1000);
  await smsc?.close();
});

type Outbound = components["schemas"]["OutboundMessage"];
let numbering = 0;
const numbersFor = (count: number) => Array.from({ length: count }, () => `+1415559${String(++numbering).padStart(4, "0")}`);
const message = async (a: TestAccount, id: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: id } } })).data! as Outbound;
const allSent = (a: TestAccount, ids: string[]) =>
  waitUntil("every message sent", async () => {
    const all = await Promise.all(ids.map((id) => message(a, id)));
    return all.every((m) => m.status === "sent") && all;
  });
const counter = async (name: string, label: string, value: string) =>
  (await register.getSingleMetric(name)!.get()).values.find((v) => v.labels[label] === value)?.value ?? 0;
const gauge = async (name: string) => (await register.getSingleMetric(name)!.get()).values[0]?.value;

/**
 * Schedules one message to each number an hour ahead, in reverse time order (and `high` where asked), then makes
 * all their jobs due in one statement, so one claim takes them: the claim order (priority, then due time) is
 * known and differs from the order they were created in. Returns the ids in claim order.
 */
async function dueAtOnce(a: TestAccount, numbers: string[], high: string[] = [], body = (n: string) => `throttle test ${n}`) {
  const base = Date.now() + 3_600_000;
  const created = await Promise.all(
    numbers.map(async (to, i) => {
      const scheduledAt = new Date(base + (numbers.length - i) * 1000).toISOString();
      const priority = high.includes(to) ? ("high" as const) : ("normal" as const);
      const { data, error } = await a.client.POST("/api/v1/scheduler/schedule", {
        body: { to, body: body(to), from: "ACME", scheduledAt, priority },
      });
      if (!data) throw new Error(`schedule failed: ${JSON.stringify(error)}`);
      return { to, id: data.messageId, scheduledAt, rank: priority === "high" ? 0 : 1 };
    }),
  );
  const { db } = server();
  await db.raw(`UPDATE jobs SET run_at = run_at - interval '2 hours' WHERE id IN (SELECT job_id FROM messages WHERE id = ANY(?::uuid[]))`, [
    created.map((m) => m.id),
  ]);
  await notifyWorkers(db);
  return created.sort((x, y) => x.rank - y.rank || x.scheduledAt.localeCompare(y.scheduledAt));
}

/** Answers the submits to `numbers` by `decide(k)` (k: 0 for the first of them the SMSC reads), logging each. */
function script(numbers: string[], decide: (k: number, pdu: PDU) => number) {
  const log: { to: string; status: number; pdu: PDU }[] = [];
  smsc.answer = (pdu) => {
    const to = `+${pdu.destination_addr as string}`;
    if (!numbers.includes(to)) return 0;
    const status = decide(log.length, pdu);
    log.push({ to, status, pdu });
    return status;
  };
  /** Each number in the order the SMSC first accepted a submit to it. */
  const acceptedOrder = () => [...new Set(log.filter((e) => e.status === 0).map((e) => e.to))];
  return { log, acceptedOrder };
}

describe("SMPP throttling", () => {
  it("ESME_RMSGQFUL: every message sent, none failed, in claim order; the rate halves once per throttle burst and comes back up with successful submits", async () => {
    const a = await server().account();
    const { connection } = worker!.provider as SmppProvider;
    // A fresh worker: full speed.
    expect(await gauge("smpp_submit_rate_limit")).toBe(MAX_PER_SECOND);

    const numbers = numbersFor(8);
    const before = await counter("smpp_throttled_total", "reason", "ESME_RMSGQFUL");
    // The whole first window (three written together: one burst, one decrease), then the first of them twice
    // more, alone each time (two more decreases).
    const { acceptedOrder } = script(numbers, (k) => (k < 5 ? MSGQFUL : 0));
    const claimed = await dueAtOnce(a, numbers);
    await allSent(
      a,
      claimed.map((m) => m.id),
    );
    expect(acceptedOrder()).toEqual(claimed.map((m) => m.to));
    expect(await counter("smpp_throttled_total", "reason", "ESME_RMSGQFUL")).toBe(before + 5);
    expect(await counter("smpp_submits_total", "status", "ESME_RMSGQFUL")).toBe(0);
    // 50 → 25 → 12.5 → 6.25 (three decreases for five throttles), then the eight successes that followed:
    // ceil(6.25) = 7 of them raise it by a tenth of the maximum, 5.
    expect(connection.rate.current).toBe(MAX_PER_SECOND / 8 + MAX_PER_SECOND / 10);
    expect(await gauge("smpp_submit_rate_limit")).toBe(connection.rate.current);
    smsc.answer = () => 0;
  });

  it("ESME_RTHROTTLED: the same, with a high-priority message claimed first; throttles counted apart from failures", async () => {
    const a = await server().account();
    const numbers = numbersFor(8);
    const throttledBefore = await counter("smpp_throttled_total", "reason", "ESME_RTHROTTLED");
    const refusedBefore = await counter("smpp_submits_total", "status", "ESME_RTHROTTLED");
    // The window is 3: the 2nd and 3rd submits (two messages written together) and then the 4th (the first of
    // them written again) are throttled.
    const { log, acceptedOrder } = script(numbers, (k) => (k >= 1 && k <= 3 ? THROTTLED : 0));
    const claimed = await dueAtOnce(a, numbers, [numbers[5]!]);
    const sent = await allSent(
      a,
      claimed.map((m) => m.id),
    );

    expect(acceptedOrder()).toEqual(claimed.map((m) => m.to));
    expect(log.filter((e) => e.status === THROTTLED)).toHaveLength(3);
    expect(log).toHaveLength(8 + 3);
    for (const m of sent) expect(m.history.map((h) => h.status)).toEqual(["scheduled", "sent"]);
    expect(await counter("smpp_throttled_total", "reason", "ESME_RTHROTTLED")).toBe(throttledBefore + 3);
    expect(await counter("smpp_submits_total", "status", "ESME_RTHROTTLED")).toBe(refusedBefore);
    smsc.answer = () => 0;
  });

  it("a later segment throttled is submitted again alone: the message is never resent from its first part, and is sent", async () => {
    const a = await server().account();
    const [to] = numbersFor(1);
    const text = "abcdefghij".repeat(40); // 400 GSM-7 characters: 3 segments
    const part = (pdu: PDU) => (pdu.short_message as { udh?: Buffer[] }).udh?.[0]?.[4];
    let throttled = 0;
    const { log } = script([to!], (_k, pdu) => (part(pdu) === 2 && throttled++ < 3 ? THROTTLED : 0));
    const [m] = await dueAtOnce(a, [to!], [], () => text);
    const [sent] = await allSent(a, [m!.id]);
    expect(sent!.segments).toBe(3);
    expect(log.map((e) => [part(e.pdu), e.status])).toEqual([
      [1, 0],
      [2, THROTTLED],
      [2, THROTTLED],
      [2, THROTTLED],
      [2, 0],
      [3, 0],
    ]);
    const references = new Set(log.map((e) => (e.pdu.short_message as { udh: Buffer[] }).udh[0]![2]));
    expect(references.size).toBe(1);
    expect(sent!.providerMessageId).toBe(smsc.idOf(log[0]!.pdu));
    smsc.answer = () => 0;
  });

  it("an SMSC that throttles everything: after SMPP_THROTTLE_MAX_WAIT_MS the message is back to scheduled and cancellable, never failed", async () => {
    await worker!.stop(1000);
    worker = undefined;
    await start({ smppThrottleMaxWaitMs: 300, smppThrottlePauseMs: 50 });
    const a = await server().account();
    const [to] = numbersFor(1);
    const { log } = script([to!], () => THROTTLED);
    const [m] = await dueAtOnce(a, [to!]);
    const { db } = server();
    const status = async () => (await db<{ id: string; status: string }>("messages").where({ id: m!.id }).first("status"))?.status;
    await waitUntil("throttled, then back to scheduled", async () => log.length > 0 && (await status()) === "scheduled", 10_000);
    // It goes round (claimed, throttled until the bound, back) until the cancel lands while it is scheduled.
    await waitUntil("cancelled", async () => (await a.request("DELETE", `/api/v1/scheduler/cancel/${m!.id}`)).status === 200, 10_000);
    const cancelled = await message(a, m!.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.error ?? null).toBeNull();
    expect(cancelled.history.map((h) => h.status)).not.toContain("failed");
    expect(log.every((e) => e.status === THROTTLED)).toBe(true);
    expect(await counter("smpp_submits_total", "status", "ESME_RTHROTTLED")).toBe(0);
    smsc.answer = () => 0;
  });
});
