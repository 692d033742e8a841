// One door for new messages (docs/ARCHITECTURE.md, "Where a new intake rule goes"): the same refusal through
// every door reads the same — `POST /messages`, `/scheduler/schedule`, a batch item, campaign creation (a
// recipient skipped, counted by reason), fan-out (a prefix blocked after creation) and SMPP `submit_sm` (its
// status) — with the same `code` and the same words. Blocked destinations prove it: the deployment's
// BLOCKED_PREFIXES and the account's limits.blockedPrefixes.
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

const submitSm = (to: string) =>
  new Promise<PDU>((resolve) =>
    session.submit_sm(
      { source_addr_ton: 5, source_addr: "ACME", dest_addr_ton: 1, destination_addr: to.slice(1), short_message: "hi" },
      resolve,
    ),
  );

/** The refusal of `to` through each HTTP door that refuses one message: its code and detail, by door. */
async function httpRefusals(to: string) {
  const body = { to, body: "hi", from: "ACME" };
  const send = await account.request("POST", "/api/v1/messages", body);
  const schedule = await account.request("POST", "/api/v1/scheduler/schedule", { ...body, scheduledAt: inHours(1) });
  const batch = await account.request("POST", "/api/v1/messages/batch", {
    messages: [{ to: "+14155550123", body: "ok", from: "ACME" }, body],
  });
  const item = ((await batch.json()) as { results: { index: number; error?: { code: string; detail: string } }[] }).results[1]!.error!;
  const problems = { send: await problemOf(send), schedule: await problemOf(schedule) };
  expect([send.status, schedule.status]).toEqual([422, 422]);
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
});
