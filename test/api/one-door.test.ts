// One door for new messages (docs/ARCHITECTURE.md, "Where a new intake rule goes"): the same refusal through
// every door reads the same — `POST /messages`, `/scheduler/schedule`, a batch item, campaign creation (a
// recipient skipped, counted by reason; or the campaign refused), fan-out (a prefix blocked after creation) and
// SMPP `submit_sm` (its status) — with the same `code` and the same words (server/domain/intakeRefusals.ts words
// each once). Every intake rule: blocked destinations (the deployment's BLOCKED_PREFIXES and the account's
// limits.blockedPrefixes), the opt-out list, a sender the account does not hold, a balance that cannot pay.
import smpp, { type PDU, type Session } from "smpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer, type TestAccount } from "../helpers/server.js";
import { boundTransceiver, giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, blockedPrefixes: ["+4470"] });
useTestWorker(server);
const smppServer = useSmppServer(server);
let account: TestAccount;
let session: Session;

beforeAll(async () => {
  account = await server().account("one-door");
  await giveSmppCredentials(server, account.accountId, { systemId: "door01", password: "pw", submitsPerSecond: 1000 });
  session = await boundTransceiver(smppServer().port, "door01", "pw");
});
afterAll(() => session?.destroy());

const submitSm = (to: string, from = "ACME", through = session) =>
  new Promise<PDU>((resolve) =>
    through.submit_sm(
      {
        source_addr_ton: from.startsWith("+") ? 1 : 5,
        source_addr: from.startsWith("+") ? from.slice(1) : from,
        dest_addr_ton: 1,
        destination_addr: to.slice(1),
        short_message: "hi",
      },
      resolve,
    ),
  );

/** The refusal of `to` (from `from`) through each HTTP door that refuses one message: its code and detail, by door. */
async function httpRefusals(to: string, opts: { from?: string; who?: TestAccount; status?: number } = {}) {
  const who = opts.who ?? account;
  const body = { to, body: "hi", from: opts.from ?? "ACME" };
  const send = await who.request("POST", "/api/v1/messages", body);
  const schedule = await who.request("POST", "/api/v1/scheduler/schedule", { ...body, scheduledAt: inHours(1) });
  const batch = await who.request("POST", "/api/v1/messages/batch", { messages: [body] });
  const item = ((await batch.json()) as { results: { index: number; error?: { code: string; detail: string } }[] }).results[0]!.error!;
  const problems = { send: await problemOf(send), schedule: await problemOf(schedule) };
  expect([send.status, schedule.status]).toEqual([opts.status ?? 422, opts.status ?? 422]);
  return {
    send: { code: problems.send.code, detail: problems.send.detail },
    schedule: { code: problems.schedule.code, detail: problems.schedule.detail },
    batchItem: { code: item.code, detail: item.detail },
  };
}

describe("the same refusal through every door", () => {
  it("blocked destinations: the deployment's and the account's, 422 destination_blocked in the same words, ESME_RINVDSTADR over SMPP", async () => {
    const deployment = await httpRefusals("+447000123456");
    const expected = { code: "destination_blocked", detail: "+447000123456 is under the blocked prefix +4470; not accepted." };
    expect(deployment).toEqual({ send: expected, schedule: expected, batchItem: expected });
    expect((await submitSm("+447000123456")).command_status).toBe(smpp.errors.ESME_RINVDSTADR);

    // The account's own, set by the operator (audited), applies from its 200 on.
    const op = await server().operator();
    const set = await op.request("PATCH", `/api/v1/accounts/${account.accountId}`, { blockedPrefixes: ["+1415555019"] });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { limits: { blockedPrefixes: string[] } }).limits.blockedPrefixes).toEqual(["+1415555019"]);
    const own = await httpRefusals("+14155550199");
    const ownExpected = { code: "destination_blocked", detail: "+14155550199 is under the blocked prefix +1415555019; not accepted." };
    expect(own).toEqual({ send: ownExpected, schedule: ownExpected, batchItem: ownExpected });
    // An SMPP session reads its account again each second (clientSession.ts): refused from then on.
    await waitUntil("the SMPP session refuses the account's blocked prefix", async () => {
      return (await submitSm("+14155550199")).command_status === smpp.errors.ESME_RINVDSTADR;
    });
    const events = (await (await op.request("GET", `/api/v1/audit-events?accountId=${account.accountId}`)).json()) as {
      data: { action: string }[];
    };
    expect(events.data.map((e) => e.action)).toContain("OperatorAccounts_update");

    // A campaign skips blocked recipients, counted as `blocked`, beside those not allowed.
    const { data: campaign, error } = await account.client.POST("/api/v1/campaigns", {
      body: {
        name: "blocked",
        message: "hi",
        type: "instant",
        recipients: ["+14155550170", "+14155550199", "+447000123456", "+449098765432"],
      },
    });
    expect(error).toBeUndefined();
    expect(campaign!.stats).toMatchObject({ total: 1, skipped: 3, skippedBy: { blocked: 2, destination_not_allowed: 1 } });
  });

  it("a prefix blocked after a campaign was made skips its recipients at fan-out (reason blocked), never sending to them", async () => {
    const other = await server().account("one-door-fanout");
    const op = await server().operator();
    // A draft (a duplicate) takes its audience now and makes nothing until it is resumed.
    const { data: original } = await other.client.POST("/api/v1/campaigns", {
      body: { name: "later", message: "hi", type: "instant", recipients: ["+14155550181", "+14155550182"] },
    });
    await waitUntil("original sent", async () => {
      const { data } = await other.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: original!.campaignId } } });
      return data!.status === "completed";
    });
    const copy = (await (await other.request("POST", `/api/v1/campaigns/${original!.campaignId}/duplicate`, {})).json()) as {
      campaignId: string;
    };
    expect((await op.request("PATCH", `/api/v1/accounts/${other.accountId}`, { blockedPrefixes: ["+14155550182"] })).status).toBe(200);
    expect((await other.request("POST", `/api/v1/campaigns/${copy.campaignId}/resume`)).status).toBe(200);
    const done = await waitUntil("copy completed", async () => {
      const { data } = await other.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: copy.campaignId } } });
      return data!.status === "completed" && data!;
    });
    expect(done.stats).toMatchObject({ skipped: 1, skippedBy: { blocked: 1 } });
    const { data: sent } = await other.client.GET("/api/v1/messages", { params: { query: { campaignId: copy.campaignId } } });
    expect(sent!.data.map((m) => m.to)).toEqual(["+14155550181"]);
  });

  it("opted out: 422 recipient_opted_out in the same words, ESME_RINVDSTADR over SMPP, skipped as opted out by a campaign", async () => {
    const to = "+14155550133";
    expect((await account.request("PUT", `/api/v1/opt-outs/${encodeURIComponent(to)}`)).status).toBeLessThan(300);
    const expected = { code: "recipient_opted_out", detail: `${to} is on this account's opt-out list; not accepted.` };
    expect(await httpRefusals(to)).toEqual({ send: expected, schedule: expected, batchItem: expected });
    expect((await submitSm(to)).command_status).toBe(smpp.errors.ESME_RINVDSTADR);
    const { data: campaign } = await account.client.POST("/api/v1/campaigns", {
      body: { name: "opted out", message: "hi", type: "instant", recipients: [to, "+14155550134"] },
    });
    // Checked at fan-out (the list may change between creation and sending): counted there.
    await waitUntil("the opted-out recipient skipped at fan-out", async () => {
      const { data } = await account.client.GET("/api/v1/campaigns/{campaignId}", {
        params: { path: { campaignId: campaign!.campaignId } },
      });
      return data!.stats.skippedBy?.opted_out === 1;
    });
  });

  it("a sender the account does not hold: 422 sender_not_allowed in the same words at every door, campaigns too; ESME_RINVSRCADR", async () => {
    const from = "+14155550901";
    const expected = {
      code: "sender_not_allowed",
      detail: `The sender ${from} is not a number this account holds (the operator assigns numbers); not accepted.`,
    };
    expect(await httpRefusals("+14155550135", { from })).toEqual({ send: expected, schedule: expected, batchItem: expected });
    const campaign = await account.request("POST", "/api/v1/campaigns", {
      name: "unheld",
      message: "hi",
      type: "instant",
      from,
      recipients: ["+14155550135"],
    });
    expect(campaign.status).toBe(422);
    const problem = await problemOf(campaign);
    expect({ code: problem.code, detail: problem.detail }).toEqual(expected);
    expect((await submitSm("+14155550135", from)).command_status).toBe(smpp.errors.ESME_RINVSRCADR);
  });

  it("a prepaid balance that cannot pay: 402 insufficient_funds in the same words at every door, campaigns too; ESME_RSUBMITFAIL", async () => {
    const op = await server().operator();
    const list = { currency: "USD", entries: [{ country: "US", pricePerSegment: 5000 }], default: null };
    expect((await op.request("PUT", "/api/v1/price-lists/one-door", list)).status).toBeLessThan(300);
    const poor = await server().account("one-door-poor");
    expect((await op.request("PATCH", `/api/v1/accounts/${poor.accountId}`, { priceList: "one-door", billing: "prepaid" })).status).toBe(
      200,
    );
    const expected = {
      code: "insufficient_funds",
      detail: "The account's balance cannot pay for this: not accepted. Ask the operator for a top-up.",
    };
    expect(await httpRefusals("+14155550136", { who: poor, status: 402 })).toEqual({
      send: expected,
      schedule: expected,
      batchItem: expected,
    });
    const campaign = await poor.request("POST", "/api/v1/campaigns", {
      name: "poor",
      message: "hi",
      type: "instant",
      recipients: ["+14155550136"],
    });
    expect(campaign.status).toBe(402);
    const problem = await problemOf(campaign);
    expect({ code: problem.code, detail: problem.detail }).toEqual(expected);
    await giveSmppCredentials(server, poor.accountId, { systemId: "door02", password: "pw", submitsPerSecond: 1000 });
    const poorSession = await boundTransceiver(smppServer().port, "door02", "pw");
    try {
      expect((await submitSm("+14155550136", "ACME", poorSession)).command_status).toBe(smpp.errors.ESME_RSUBMITFAIL);
    } finally {
      poorSession.destroy();
    }
  });
});
