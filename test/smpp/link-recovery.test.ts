// The SMPP link against a broken SMSC (test/helpers/smsc.ts): one that sends a PDU that cannot be parsed,
// one that stops answering submit_sm, and one that stops answering everything. In each case the session ends,
// the messages in hand reach a final status (a submit_sm the SMSC got is `failed` with send_outcome_unknown,
// one it never got is sent after the reconnect, none twice), the link binds again, and /metrics
// say it is down while it is. Timeouts are short here (RESPONSE_TIMEOUT_MS, ENQUIRE_LINK_MS); the bounds
// asserted are several times what a quiet machine takes.
import type { components } from "../../generated/api.js";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../server/http/app.js";
import { createLogger } from "../../server/logger.js";
import { ConnectionLost, NotBound, SmppConnection } from "../../server/providers/smpp/connection.js";
import type { SmppProvider } from "../../server/providers/smpp/provider.js";
import type { Worker } from "../../server/worker.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { startSmsc, type Smsc, startSmppTestWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const RESPONSE_TIMEOUT_MS = 1500;
const ENQUIRE_LINK_MS = 1000;
/** From the fault to every message in hand final, and to the link bound again (a quiet run takes ~3 s). */
const RECOVERY_BOUND_MS = 15_000;

let smsc: Smsc;
let worker: Worker;
let connection: SmppConnection;
let api: Server;
let base: string;
const server = useTestServer({
  ...fastWorkerConfig,
  provider: "smpp",
  smppMaxInFlight: 3,
  smppMaxPerSecond: 200,
  smppResponseTimeoutMs: RESPONSE_TIMEOUT_MS,
  smppEnquireLinkMs: ENQUIRE_LINK_MS,
  // A submit the SMSC got is of unknown outcome; no receipt comes here, so it fails after this.
  sendOutcomeResolveMs: 1000,
});

beforeAll(async () => {
  smsc = await startSmsc();
  const s = server();
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? "silent");
  worker = await startSmppTestWorker({ db: s.db, databaseUrl: s.url, log, config: { ...s.config, smppUrl: smsc.url } });
  connection = (worker.provider as SmppProvider).connection;
  // The API as `npm start` runs it beside a worker: /metrics shows the SMPP session; /readyz is about the process.
  const app = createApp({ db: s.db, log, config: s.config, now: () => new Date() });
  api = await new Promise<Server>((resolve) => {
    const l = app.listen(0, "127.0.0.1", () => resolve(l));
  });
  base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  await waitUntil("SMPP bound", async () => connection.state === "bound");
});
afterAll(async () => {
  await new Promise((r) => api?.close(r));
  await worker?.stop(1000);
  await smsc?.close();
});

let numbering = 0;
/** Fresh numbers for one test: no two tests share one. */
const numbersFor = (count: number) => Array.from({ length: count }, () => `+1415557${String(++numbering).padStart(4, "0")}`);

async function schedule(a: TestAccount, to: string) {
  const { data, error } = await a.client.POST("/api/v1/messages", {
    body: { to, body: `link test ${to}`, from: "ACME" },
  });
  if (!data) throw new Error(`schedule failed: ${JSON.stringify(error)}`);
  return data.messageId;
}
const message = async (a: TestAccount, id: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: id } } }))
    .data! as components["schemas"]["OutboundMessage"];
const submitsTo = (to: string) => smsc.submits.filter((p) => p.destination_addr === to.slice(1));
const metrics = async () => (await fetch(`${base}/metrics`)).text();
const sessionEnds = async (reason: string) =>
  Number(new RegExp(`^smpp_session_ends_total\\{reason="${reason}"\\} (\\d+)$`, "m").exec(await metrics())?.[1] ?? 0);
const readyzStatus = async () => (await fetch(`${base}/readyz`)).status;

/**
 * Five messages in hand with a window of three: the SMSC gets three submit_sm, then `fault(k)` (k = 0, 1, 2)
 * decides how it answers them; the two others wait for the window. Returns when all five are final, with
 * how long that took from the fault and how long until the link was bound again.
 */
async function messagesInHandThrough(fault: (k: number) => "hold" | "malformed") {
  const a = await server().account();
  const numbers = numbersFor(5);
  const bindsBefore = smsc.binds.length;
  let k = 0;
  let faultAt = 0;
  smsc.answer = (pdu) => {
    if (!numbers.includes(`+${pdu.destination_addr}`) || k >= 3) return 0;
    const decision = fault(k++);
    if (decision === "malformed" || !faultAt) faultAt = Date.now(); // the SMSC stopped answering, or broke
    return decision;
  };
  const ids = await Promise.all(numbers.map((n) => schedule(a, n)));
  await waitUntil("three submit_sm at the SMSC", async () => k === 3);
  const gotBeforeFault = numbers.filter((n) => submitsTo(n).length > 0);
  expect(gotBeforeFault).toHaveLength(3);

  const since = () => Math.max(1, Date.now() - faultAt);
  const [[final, finalMs], unknownMs, boundMs] = await Promise.all([
    waitUntil(
      "every message final",
      async () => {
        const all = await Promise.all(ids.map((id) => message(a, id)));
        return all.every((m) => m.status === "sent" || m.status === "failed") && ([all, since()] as const);
      },
      RECOVERY_BOUND_MS,
    ),
    waitUntil("the submits the SMSC got settled", async () => {
      const got = await Promise.all(gotBeforeFault.map((n) => message(a, ids[numbers.indexOf(n)]!)));
      return got.every((m) => m.status === "failed") && since();
    }),
    waitUntil("bound again", async () => smsc.binds.length > bindsBefore && connection.state === "bound" && since(), RECOVERY_BOUND_MS),
  ]);
  smsc.answer = () => 0;

  for (const [i, m] of final.entries()) {
    if (gotBeforeFault.includes(numbers[i]!)) {
      expect(m.status).toBe("failed");
      expect(m.error?.code).toBe("send_outcome_unknown");
    } else {
      expect(m.status).toBe("sent");
    }
    expect(submitsTo(numbers[i]!)).toHaveLength(1);
  }
  expect(finalMs).toBeLessThan(RECOVERY_BOUND_MS);
  expect(boundMs).toBeLessThan(RECOVERY_BOUND_MS);
  console.info(
    `SMPP link recovery after the fault: submits the SMSC got failed ${unknownMs} ms, bound again ${boundMs} ms, every message final ${finalMs} ms`,
  );
  return { unknownMs, finalMs, boundMs };
}

describe("SMPP link recovery", () => {
  it("a malformed PDU (8 bytes) ends the session at once: /metrics says down (/readyz stays ready), messages in hand settle, the link binds again", async () => {
    const endsBefore = await sessionEnds("malformed_pdu");
    const bindsBefore = smsc.binds.length;
    const recovery = messagesInHandThrough((k) => {
      if (k < 2) return "hold";
      smsc.silent = true; // keep the link down until the checks below are done
      return "malformed";
    });
    await waitUntil("session ended for the malformed PDU", async () => (await sessionEnds("malformed_pdu")) === endsBefore + 1);
    expect(connection.state).not.toBe("bound");
    // /readyz is about the process (its database and schema), never a carrier's link (docs/ROUTING.md).
    expect(await readyzStatus()).toBe(200);
    expect(await metrics()).toMatch(/^smpp_bound 0$/m);
    await waitUntil("a reconnect attempt", async () => smsc.binds.length > bindsBefore);
    smsc.silent = false;
    await recovery;
    expect(await readyzStatus()).toBe(200);
    expect(await metrics()).toMatch(/^smpp_bound 1$/m);
  });

  it.each([
    ["a length field of 2 (the package's reader waits for ever)", "00000002"],
    ["a length field over the maximum", "0010000080000004"],
    ["a 12-byte PDU", "0000000c8000000400000000"],
  ])("%s ends the session and the link binds again", async (_name, hex) => {
    const a = await server().account();
    const [to] = numbersFor(1);
    const endsBefore = await sessionEnds("malformed_pdu");
    const bindsBefore = smsc.binds.length;
    smsc.malformedPdu = Buffer.from(hex, "hex");
    let faultAt = 0;
    smsc.answer = (pdu) => {
      if (pdu.destination_addr !== to!.slice(1)) return 0;
      faultAt = Date.now();
      return "malformed";
    };
    const id = await schedule(a, to!);
    await waitUntil(
      "session ended for the malformed PDU",
      async () => (await sessionEnds("malformed_pdu")) === endsBefore + 1,
      RECOVERY_BOUND_MS,
    );
    const [[m, finalMs], boundMs] = await Promise.all([
      waitUntil("the message final", async () => {
        const found = await message(a, id);
        return (found.status === "failed" || found.status === "sent") && ([found, Date.now() - faultAt] as const);
      }),
      waitUntil(
        "bound again",
        async () => smsc.binds.length > bindsBefore && connection.state === "bound" && Date.now() - faultAt,
        RECOVERY_BOUND_MS,
      ),
    ]);
    smsc.answer = () => 0;
    expect(m.status).toBe("failed");
    expect(m.error?.code).toBe("send_outcome_unknown");
    expect(finalMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(boundMs).toBeLessThan(RECOVERY_BOUND_MS);
    console.info(`SMPP link after ${_name}: the message in flight failed ${finalMs} ms, bound again ${boundMs} ms after it`);
    // The new session reads PDUs: a message goes out on it.
    const [next] = numbersFor(1);
    const nextId = await schedule(a, next!);
    await waitUntil("sent on the new session", async () => (await message(a, nextId)).status === "sent");
    smsc.malformedPdu = Buffer.from([0, 0, 0, 8, 0, 0, 0, 4]);
  });

  it("a submit_sm_resp cut off by the SMSC closing the connection ends the session as closed, without a crash", async () => {
    const a = await server().account();
    const [to] = numbersFor(1);
    const closedBefore = await sessionEnds("closed");
    const malformedBefore = await sessionEnds("malformed_pdu");
    const bindsBefore = smsc.binds.length;
    smsc.answer = (pdu) => (pdu.destination_addr === to!.slice(1) ? "cut" : 0);
    const id = await schedule(a, to!);
    const m = await waitUntil("the message final", async () => {
      const found = await message(a, id);
      return (found.status === "failed" || found.status === "sent") && found;
    });
    expect(m.error?.code).toBe("send_outcome_unknown");
    await waitUntil("bound again", async () => smsc.binds.length > bindsBefore && connection.state === "bound", RECOVERY_BOUND_MS);
    smsc.answer = () => 0;
    expect(await sessionEnds("closed")).toBe(closedBefore + 1);
    expect(await sessionEnds("malformed_pdu")).toBe(malformedBefore);
  });

  it("an SMSC that stops answering submit_sm (enquire_link still answered): the response timeout ends the session", async () => {
    const endsBefore = await sessionEnds("submit_sm_timeout");
    const { unknownMs } = await messagesInHandThrough(() => "hold");
    expect(await sessionEnds("submit_sm_timeout")).toBe(endsBefore + 1);
    // The submits the SMSC holds settle when the timeout ends the session, not before.
    expect(unknownMs).toBeGreaterThanOrEqual(RESPONSE_TIMEOUT_MS);
  });

  it("an SMSC session that stops answering anything, with messages in hand: the link recovers on a new session", async () => {
    const timeouts = async () => (await sessionEnds("submit_sm_timeout")) + (await sessionEnds("enquire_link_timeout"));
    const before = await timeouts();
    await messagesInHandThrough((k) => {
      if (k === 2) smsc.silenceOpenSessions();
      return "hold";
    });
    expect(await timeouts()).toBe(before + 1);
  });

  it("an idle link whose SMSC stops answering: the missing enquire_link_resp ends it, binds time out, smpp_bound is 0 until the SMSC answers again", async () => {
    const endsBefore = await sessionEnds("enquire_link_timeout");
    const bindTimeoutsBefore = await sessionEnds("bind_timeout");
    const silentAt = Date.now();
    smsc.silent = true;
    await waitUntil(
      "session ended for the missing enquire_link_resp",
      async () => (await sessionEnds("enquire_link_timeout")) === endsBefore + 1,
      RECOVERY_BOUND_MS,
    );
    const detectedMs = Date.now() - silentAt;
    expect(detectedMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(await readyzStatus()).toBe(200);
    expect(await metrics()).toMatch(/^smpp_bound 0$/m);
    await waitUntil(
      "a reconnect whose bind goes unanswered",
      async () => (await sessionEnds("bind_timeout")) > bindTimeoutsBefore,
      RECOVERY_BOUND_MS,
    );
    expect(connection.state).not.toBe("bound");
    expect(await metrics()).toMatch(/^smpp_bound 0$/m);
    // Down while a message is due: it waits, queued, and goes out once the link is back.
    const a = await server().account();
    const [to] = numbersFor(1);
    const id = await schedule(a, to!);
    smsc.silent = false;
    // The backoff grew while binds went unanswered: allow for two more of its steps.
    await waitUntil("bound again", async () => connection.state === "bound", RECOVERY_BOUND_MS * 2);
    await waitUntil("smpp_bound 1", async () => /^smpp_bound 1$/m.test(await metrics()));
    await waitUntil("sent after the link came back", async () => (await message(a, id)).status === "sent", RECOVERY_BOUND_MS);
    expect(submitsTo(to!)).toHaveLength(1);
    console.info(`SMPP link: a silent SMSC detected ${detectedMs} ms after it stopped answering (idle link)`);
  });
});

describe("SMPP submits that never left the process", () => {
  it("are NotBound (the message goes back to be sent), those written are ConnectionLost (unknown outcome)", async () => {
    // An SMSC that stops reading: 500 submit_sm of 60 kB each fill the kernel's buffers, and the rest wait in
    // this process's socket buffer when the response timeout ends the session.
    const stuck = await startSmsc();
    const log = createLogger(process.env.TEST_LOG_LEVEL ?? "silent");
    const link = new SmppConnection({
      url: stuck.url,
      maxInFlight: 1000,
      maxPerSecond: 1_000_000,
      responseTimeoutMs: RESPONSE_TIMEOUT_MS,
      enquireLinkMs: 60_000,
      log,
      onDeliver: async () => undefined,
    });
    try {
      link.start();
      await waitUntil("bound", async () => link.state === "bound");
      stuck.silenceOpenSessions({ stopReading: true });
      const payload = Buffer.alloc(60_000, 0x41);
      const outcomes = await Promise.all(
        Array.from({ length: 500 }, (_v, i) =>
          link.submit({ destination_addr: `1415558${String(i).padStart(4, "0")}`, message_payload: payload }).then(
            () => "answered",
            (error: unknown) => (error instanceof NotBound ? "not written" : error instanceof ConnectionLost ? "unknown" : String(error)),
          ),
        ),
      );
      const count = (what: string) => outcomes.filter((o) => o === what).length;
      console.info(`SMPP submits when the session ended: ${count("unknown")} written (unknown), ${count("not written")} never written`);
      expect(count("unknown")).toBeGreaterThan(0);
      expect(count("not written")).toBeGreaterThan(0);
      expect(count("unknown") + count("not written")).toBe(500);
      // Which ones reached the socket is not asserted as a prefix of the submission order: the rate limiter and
      // the socket's buffering interleave them differently from run to run (seen: a written submit after an
      // unwritten one), and the outcome of each is what the service relies on.
    } finally {
      await link.stop();
      await stuck.close();
    }
  });
});
