// The operator API (CONTRACT "Operator keys and accounts"): accounts with their suspension and limits, their
// keys and their numbers; an account sees its limits read-only.
import { DEFAULT_LIMITS } from "../helpers/limits.js";
import { describe, expect, it } from "vitest";
import { addCarrierConnector, problemOf, scheduleBody, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const smppOnly = useTestServer({ provider: "smpp" });

const schedule = scheduleBody;

describe("the operator's accounts", () => {
  it("creates, lists, reads and changes accounts; a name is unique (409 account_exists)", async () => {
    const op = await server().operator();
    const created = await op.request("POST", "/api/v1/accounts", { name: "acme-ops" });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { accountId: string; createdAt: string };
    expect(account).toEqual({
      accountId: expect.any(String),
      name: "acme-ops",
      createdAt: expect.any(String),
      suspended: false,
      limits: DEFAULT_LIMITS,
      usage: null,
      balance: 0,
    });
    // One name as people read it: case, width, spaces around it (a no-break space too) make no other name.
    for (const name of ["acme-ops", "ACME-OPS", " Acme-Ops ", "\uff41\uff43\uff4d\uff45-\uff4f\uff50\uff53", "acme-ops\u00a0"]) {
      const again = await op.request("POST", "/api/v1/accounts", { name });
      expect(again.status, name).toBe(409);
      expect((await problemOf(again)).code, name).toBe("account_exists");
    }
    const blank = await op.request("POST", "/api/v1/accounts", { name: "   " });
    expect([blank.status, (await problemOf(blank)).code]).toEqual([400, "validation_failed"]);
    const trimmed = await op.request("POST", "/api/v1/accounts", { name: "  acme-ops-2  " });
    expect(((await trimmed.json()) as { name: string }).name).toBe("acme-ops-2");

    const listed = (await (await op.request("GET", "/api/v1/accounts?limit=100")).json()) as { data: { accountId: string }[] };
    expect(listed.data.map((a) => a.accountId)).toContain(account.accountId);

    const patched = await op.request("PATCH", `/api/v1/accounts/${account.accountId}`, {
      weight: 5,
      dailySegmentQuota: 1000,
      allowedCountries: ["US", "CA"],
      senderIds: ["ACME"],
      selfServiceNumbers: true,
      maxSegmentsPerSecond: 20,
    });
    expect(patched.status).toBe(200);
    const limits = {
      weight: 5,
      dailySegmentQuota: 1000,
      allowedCountries: ["US", "CA"],
      senderIds: ["ACME"],
      selfServiceNumbers: true,
      maxSegmentsPerSecond: 20,
    };
    expect(await patched.json()).toMatchObject({ limits, usage: { day: new Date().toISOString().slice(0, 10), segmentsAccepted: 0 } });
    expect(await (await op.request("GET", `/api/v1/accounts/${account.accountId}`)).json()).toMatchObject({ limits });

    // null lifts a limit; a field left out stays.
    const lifted = await op.request("PATCH", `/api/v1/accounts/${account.accountId}`, { dailySegmentQuota: null, senderIds: null });
    expect(await lifted.json()).toMatchObject({ limits: { ...limits, dailySegmentQuota: null, senderIds: null }, usage: null });

    const missing = await op.request("GET", "/api/v1/accounts/00000000-0000-4000-8000-000000000001");
    expect(missing.status).toBe(404);
    const bad = await op.request("PATCH", `/api/v1/accounts/${account.accountId}`, { weight: 0, allowedCountries: ["usa"] });
    expect(bad.status).toBe(400);
  });

  it("gives an account a key by API; the account sees its limits read-only on GET /account", async () => {
    const op = await server().operator();
    const { accountId } = (await (await op.request("POST", "/api/v1/accounts", { name: "keyed" })).json()) as { accountId: string };
    await op.request("PATCH", `/api/v1/accounts/${accountId}`, { allowedCountries: ["US"] });
    const made = await op.request("POST", `/api/v1/accounts/${accountId}/keys`, { name: "backend" });
    expect(made.status).toBe(201);
    const key = (await made.json()) as { key: string; keyId: string; scope: string; test: boolean };
    expect(key).toMatchObject({ name: "backend", scope: "full", test: false, expiresAt: null });
    expect(key.key).toMatch(new RegExp(`^sms_${key.keyId}_[0-9A-Za-z]{32}$`));

    const res = await fetch(`${server().baseUrl}/api/v1/account`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(await res.json()).toMatchObject({
      accountId,
      name: "keyed",
      limits: { ...DEFAULT_LIMITS, allowedCountries: ["US"] },
      usage: null,
    });

    const keys = (await (await op.request("GET", `/api/v1/accounts/${accountId}/keys`)).json()) as { data: { keyId: string }[] };
    expect(keys.data.map((k) => k.keyId)).toEqual([key.keyId]);
    expect((await op.request("DELETE", `/api/v1/accounts/${accountId}/keys/${key.keyId}`)).status).toBe(204);
    const revoked = await fetch(`${server().baseUrl}/api/v1/account`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(revoked.status).toBe(401);
    expect((await op.request("DELETE", `/api/v1/accounts/${accountId}/keys/${key.keyId}`)).status).toBe(404);
  });

  it("suspends an account: its keys get 403 account_suspended until it is reinstated", async () => {
    const op = await server().operator();
    const a = await server().account();
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule())).status).toBe(201);
    expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { suspended: true })).status).toBe(200);
    for (const [method, path, body] of [
      ["GET", "/api/v1/messages", undefined],
      ["POST", "/api/v1/scheduler/schedule", schedule()],
    ] as const) {
      const res = await a.request(method, path, body);
      expect(res.status).toBe(403);
      expect((await problemOf(res)).code).toBe("account_suspended");
    }
    expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { suspended: false })).status).toBe(200);
    expect((await a.request("GET", "/api/v1/messages")).status).toBe(200);
  });
});

describe("numbers an account holds", () => {
  it("the operator assigns a number; another account can neither take it nor send from it", async () => {
    const op = await server().operator();
    const a = await server().account();
    const b = await server().account();
    const numberId = await a.holds("+14155550301");
    const holder = await op.request("GET", "/api/v1/numbers/holder?phoneNumber=%2B1%20415%20555%200301");
    expect(await holder.json()).toEqual({ accountId: a.accountId, numberId });
    expect((await op.request("GET", "/api/v1/numbers/holder?phoneNumber=%2B14155550399")).status).toBe(404);

    // B can neither take it (self-service here: the simulator alone) nor be given it.
    const taken = await b.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550301" });
    expect((await problemOf(taken)).code).toBe("number_taken");
    const given = await op.request("POST", `/api/v1/accounts/${b.accountId}/numbers`, { phoneNumber: "+14155550301" });
    expect((await problemOf(given)).code).toBe("number_taken");

    // B cannot send from it: schedule and campaigns.
    const sent = await b.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "+14155550301" }));
    expect(sent.status).toBe(422);
    expect(await problemOf(sent)).toMatchObject({ code: "sender_not_allowed", errors: [{ path: "/body/from" }] });
    const campaign = await b.request("POST", "/api/v1/campaigns", {
      name: "spoof",
      message: "This is Alpha Bank",
      type: "instant",
      from: "+14155550301",
      recipients: ["+14155550123"],
    });
    expect((await problemOf(campaign)).code).toBe("sender_not_allowed");
    expect((await b.client.GET("/api/v1/messages")).data!.data).toEqual([]);

    // A can; and once the operator takes the number back, A cannot either.
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "+14155550301" }))).status).toBe(201);
    const listed = (await (await op.request("GET", `/api/v1/accounts/${a.accountId}/numbers`)).json()) as { data: unknown[] };
    expect(listed.data).toEqual([expect.objectContaining({ numberId, phoneNumber: "+14155550301", selfService: false })]);
    expect((await op.request("DELETE", `/api/v1/accounts/${a.accountId}/numbers/${numberId}`)).status).toBe(204);
    const after = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "+14155550301" }));
    expect((await problemOf(after)).code).toBe("sender_not_allowed");
  });

  it("an account adds its own number only where self-service is allowed (403 self_service_disabled)", async () => {
    await addCarrierConnector(await smppOnly().operator());
    const a = await smppOnly().account();
    const res = await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550311" });
    expect(res.status).toBe(403);
    expect((await problemOf(res)).code).toBe("self_service_disabled");
    const op = await smppOnly().operator();
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { selfServiceNumbers: true });
    const own = await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550311" });
    expect(own.status).toBe(201);
    expect(await own.json()).toMatchObject({ phoneNumber: "+14155550311", selfService: true });
  });

  it("restricts alphanumeric senders to the account's senderIds; a campaign without from uses the first", async () => {
    const op = await server().operator();
    const a = await server().account();
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { senderIds: ["ALPHA", "BETA"] });
    const other = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "ACME" }));
    expect((await problemOf(other)).code).toBe("sender_not_allowed");
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "BETA" }))).status).toBe(201);
    const campaign = await a.request("POST", "/api/v1/campaigns", {
      name: "c",
      message: "hi",
      type: "instant",
      recipients: ["+14155550123"],
    });
    expect(campaign.status).toBe(201);
    expect(await campaign.json()).toMatchObject({ from: "ALPHA" });
  });
});
