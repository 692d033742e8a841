// The audit log (CONTRACT "Audit log"): every successful change appends exactly one event naming the operation,
// the key, the account and the resource — never a body, a secret or a key; refused requests, single sends and
// webhook tests append none. An account reads its own; the operator reads all.
import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { isAudited } from "../../server/http/audit.js";
import { applyRetention } from "../../server/jobs/maintenance/applyRetention.js";
import { useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";

const server = useTestServer();

type Event = {
  action: string;
  actor: { type: string; keyId: string | null; email: string | null };
  accountId: string | null;
  resourceId: string | null;
  requestId: string;
  status: number;
};

async function events(who: { request: TestAccount["request"] }, query = ""): Promise<Event[]> {
  const res = await who.request("GET", `/api/v1/audit-events?limit=100${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Event[] }).data;
}

/** One successful call of every audited operation, in an order where each has what it needs. */
async function changeEverything(
  a: TestAccount,
  op: TestOperator,
): Promise<{ done: string[]; secrets: string[]; person: { userId: string; email: string } }> {
  const done: string[] = [];
  const secrets: string[] = [a.key, op.key];
  const call = async (operationId: string, who: { request: TestAccount["request"] }, method: string, path: string, body?: unknown) => {
    const res = await who.request(method, path, body);
    expect(res.status, `${operationId}: ${await res.clone().text()}`).toBeLessThan(300);
    done.push(operationId);
    return res.status === 204 ? {} : ((await res.json()) as Record<string, string>);
  };
  const group = await call("Groups_create", a, "POST", "/api/v1/contacts/groups", { name: "audited" });
  const contact = await call("Contacts_create", a, "POST", "/api/v1/contacts", { phone: "+14155550501", groupId: group.groupId });
  await call("Contacts_update", a, "PATCH", `/api/v1/contacts/${contact.contactId}`, { firstName: "Ada" });
  await call("Contacts_import", a, "POST", "/api/v1/contacts/import", { contacts: [{ phone: "+14155550502" }] });
  await call("Contacts_delete", a, "DELETE", `/api/v1/contacts/${contact.contactId}`);
  const webhook = await call("Webhooks_create", a, "POST", "/api/v1/webhooks", {
    name: "audited",
    url: "http://127.0.0.1:9/h",
    events: ["contact.opted_out"],
  });
  secrets.push(webhook.secret!);
  await call("OptOuts_add", a, "PUT", "/api/v1/opt-outs/%2B14155550505");
  await call("OptOuts_import", a, "POST", "/api/v1/opt-outs/import", { optOuts: [{ phone: "+14155550517" }] });
  const deliveries = (await (await a.request("GET", `/api/v1/webhooks/${webhook.webhookId}/deliveries`)).json()) as {
    data: { deliveryId: string }[];
  };
  await call(
    "Webhooks_redeliver",
    a,
    "POST",
    `/api/v1/webhooks/${webhook.webhookId}/deliveries/${deliveries.data[0]!.deliveryId}/redeliver`,
  );
  await call("Webhooks_update", a, "PATCH", `/api/v1/webhooks/${webhook.webhookId}`, { name: "renamed" });
  const rotated = await call("Webhooks_rotateSecret", a, "POST", `/api/v1/webhooks/${webhook.webhookId}/secret/rotate`);
  secrets.push(rotated.secret!);
  await call("Webhooks_enable", a, "POST", `/api/v1/webhooks/${webhook.webhookId}/enable`);
  await call("Webhooks_delete", a, "DELETE", `/api/v1/webhooks/${webhook.webhookId}`);
  const number = await call("Numbers_create", a, "POST", "/api/v1/numbers", { phoneNumber: "+14155550503" });
  await call("Simulator_inbound", a, "POST", "/api/v1/simulator/inbound", { from: "+14155550504", to: "+14155550503", body: "hi" });
  await call("Numbers_delete", a, "DELETE", `/api/v1/numbers/${number.numberId}`);
  await call("OptOuts_remove", a, "DELETE", "/api/v1/opt-outs/%2B14155550505");
  await call("Accounts_updateSettings", a, "PATCH", "/api/v1/account/settings", { helpReply: "Help." });
  const later = new Date(Date.now() + 3600_000).toISOString();
  const message = (await (
    await a.request("POST", "/api/v1/scheduler/schedule", { to: "+14155550506", from: "ACME", body: "x", scheduledAt: later })
  ).json()) as { messageId: string };
  await call("Scheduler_cancel", a, "DELETE", `/api/v1/scheduler/cancel/${message.messageId}`);
  const campaign = await call("Campaigns_create", a, "POST", "/api/v1/campaigns", {
    name: "c",
    message: "hi",
    type: "scheduled",
    scheduledAt: later,
    recipients: ["+14155550507"],
  });
  await call("Campaigns_update", a, "PATCH", `/api/v1/campaigns/${campaign.campaignId}`, { name: "renamed" });
  await call("Campaigns_pause", a, "POST", `/api/v1/campaigns/${campaign.campaignId}/pause`);
  await call("Campaigns_resume", a, "POST", `/api/v1/campaigns/${campaign.campaignId}/resume`);
  const copy = await call("Campaigns_duplicate", a, "POST", `/api/v1/campaigns/${campaign.campaignId}/duplicate`, {});
  await call("Campaigns_cancel", a, "POST", `/api/v1/campaigns/${copy.campaignId}/cancel`);
  await call("Campaigns_cancel", a, "POST", `/api/v1/campaigns/${campaign.campaignId}/cancel`);
  const batch = (await (
    await a.request("POST", "/api/v1/messages/batch", { messages: [{ to: "+14155550509", from: "ACME", body: "x", scheduledAt: later }] })
  ).json()) as { batchId: string };
  await call("Batches_cancel", a, "POST", `/api/v1/batches/${batch.batchId}/cancel`);
  const connector = await call("Connectors_create", op, "POST", "/api/v1/connectors", {
    name: `audited-${Date.now()}`,
    type: "smpp",
    smpp: { host: "127.0.0.1", port: 9, systemId: "audited", password: "s3cr3tpw" },
  });
  secrets.push("s3cr3tpw");
  await call("Connectors_update", op, "PATCH", `/api/v1/connectors/${connector.connectorId}`, { enabled: false });
  const table = (await (await op.request("GET", "/api/v1/routes")).json()) as { version: number; routes: unknown[] };
  await call("Routes_replace", op, "PUT", "/api/v1/routes", table);
  await call("Connectors_delete", op, "DELETE", `/api/v1/connectors/${connector.connectorId}`);
  const pool = await call("SenderPools_create", a, "POST", "/api/v1/sender-pools", { name: "audited", senders: ["ACME"] });
  await call("SenderPools_update", a, "PATCH", `/api/v1/sender-pools/${pool.senderPoolId}`, { sticky: false });
  await call("SenderPools_delete", a, "DELETE", `/api/v1/sender-pools/${pool.senderPoolId}`);
  await call("Groups_delete", a, "DELETE", `/api/v1/contacts/groups/${group.groupId}`);
  const template = await call("Templates_create", a, "POST", "/api/v1/templates", { name: "audited", body: "Hi {{name}}" });
  await call("Templates_update", a, "PATCH", `/api/v1/templates/${template.templateId}`, { body: "Hello {{name}}" });
  await call("Templates_delete", a, "DELETE", `/api/v1/templates/${template.templateId}`);
  const key = await call("Keys_create", a, "POST", "/api/v1/keys", { name: "k" });
  secrets.push(key.key!);
  await call("Keys_revoke", a, "DELETE", `/api/v1/keys/${key.keyId}`);

  const account = await call("OperatorAccounts_create", op, "POST", "/api/v1/accounts", { name: `audited-${Date.now()}` });
  await call("OperatorAccounts_update", op, "PATCH", `/api/v1/accounts/${account.accountId}`, { weight: 2 });
  const opKey = await call("OperatorAccountKeys_create", op, "POST", `/api/v1/accounts/${account.accountId}/keys`, {});
  secrets.push(opKey.key!);
  await call("OperatorAccountKeys_revoke", op, "DELETE", `/api/v1/accounts/${account.accountId}/keys/${opKey.keyId}`);
  const held = await call("OperatorAccountNumbers_assign", op, "POST", `/api/v1/accounts/${account.accountId}/numbers`, {
    phoneNumber: "+14155550508",
  });
  await call("OperatorAccountNumbers_revoke", op, "DELETE", `/api/v1/accounts/${account.accountId}/numbers/${held.numberId}`);
  const credentials = `/api/v1/accounts/${account.accountId}/smpp-credentials`;
  await call("OperatorSmppCredentials_create", op, "POST", credentials, { systemId: `au${Date.now() % 1e9}`, password: "pw-au" });
  secrets.push("pw-au");
  const listed = (await (await op.request("GET", credentials)).json()) as { data: { systemId: string }[] };
  const systemId = listed.data[0]!.systemId;
  await call("OperatorSmppCredentials_update", op, "PATCH", `${credentials}/${systemId}`, { password: "pw-au2" });
  secrets.push("pw-au2");
  await call("OperatorSmppCredentials_unlock", op, "POST", `${credentials}/${systemId}/unlock`);
  await call("OperatorSmppCredentials_delete", op, "DELETE", `${credentials}/${systemId}`);
  await call("OperatorPriceLists_put", op, "PUT", "/api/v1/price-lists/audited", { currency: "USD", entries: [], default: 1000 });
  await call("OperatorCredits_create", op, "POST", `/api/v1/accounts/${account.accountId}/credits`, { amount: 5000, note: "audited" });
  await call("OperatorPriceLists_delete", op, "DELETE", "/api/v1/price-lists/audited");

  // People: an invitation accepted (no key: the person it names is the actor), a role changed, sessions ended.
  const base = server().baseUrl;
  const anonymous = {
    request: (method: string, path: string, body?: unknown) =>
      fetch(base + path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  };
  const person = `audit-${Date.now()}@example.com`;
  const invitation = await call("Users_invite", a, "POST", "/api/v1/users/invite", { email: person, role: "developer" });
  const password = "an audited passphrase";
  secrets.push(invitation.inviteToken!, password);
  await call("Users_accept", anonymous, "POST", "/api/v1/users/accept", { token: invitation.inviteToken, password });
  await call("Users_update", a, "PATCH", `/api/v1/users/${invitation.userId}`, { role: "viewer" });
  const signedIn = async (email = person) => {
    const res = await anonymous.request("POST", "/api/v1/session", { email, password });
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    secrets.push(cookie.split("=")[1]!, csrfToken);
    return {
      request: (method: string, path: string, body?: unknown) =>
        fetch(base + path, {
          method,
          headers: { Cookie: cookie, "X-CSRF-Token": csrfToken, ...(body ? { "Content-Type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }),
    };
  };
  // Two-factor sign-in on and off, with the app's codes (otpauth computes them as an authenticator app would).
  const session = await signedIn();
  const { secret } = (await call("TwoFactor_begin", session, "POST", "/api/v1/users/me/two-factor")) as { secret: string };
  secrets.push(secret);
  const codeAt = (at: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
  const { recoveryCodes } = (await call("TwoFactor_confirm", session, "POST", "/api/v1/users/me/two-factor/confirm", {
    code: codeAt(Date.now()),
  })) as unknown as { recoveryCodes: string[] };
  secrets.push(...recoveryCodes);
  await call("TwoFactor_disable", session, "POST", "/api/v1/users/me/two-factor/disable", { code: codeAt(Date.now() + 30_000) });
  await call("Sessions_delete", await signedIn(), "DELETE", "/api/v1/session");
  const device = (await (await (await signedIn()).request("GET", "/api/v1/session")).json()) as { sessionId: string };
  await call("Sessions_end", await signedIn(), "DELETE", `/api/v1/sessions/${device.sessionId}`);
  await call("Sessions_deleteAll", await signedIn(), "DELETE", "/api/v1/sessions");
  await call("Users_delete", a, "DELETE", `/api/v1/users/${invitation.userId}`);
  const owner = await call("OperatorUsers_inviteToAccount", op, "POST", `/api/v1/accounts/${account.accountId}/users/invite`, {
    email: `owner-${person}`,
    role: "owner",
  });
  const staff = await call("OperatorUsers_invite", op, "POST", "/api/v1/operator-users/invite", { email: `staff-${person}` });
  secrets.push(owner.inviteToken!, staff.inviteToken!);
  await call("OperatorUsers_update", op, "PATCH", `/api/v1/operator-users/${staff.userId}`, { role: "auditor" });
  await call("OperatorUsers_remove", op, "DELETE", `/api/v1/operator-users/${staff.userId}`);
  await call("OperatorUsers_setTwoFactorRequirement", op, "PUT", "/api/v1/operator-users/two-factor-requirement", { required: false });
  // The owner, with two-factor sign-in on, requires it of everyone.
  await call("Users_accept", anonymous, "POST", "/api/v1/users/accept", { token: owner.inviteToken, password });
  const ownerSession = await signedIn(`owner-${person}`);
  const ownerSecret = ((await call("TwoFactor_begin", ownerSession, "POST", "/api/v1/users/me/two-factor")) as { secret: string }).secret;
  secrets.push(ownerSecret);
  const ownerCode = new TOTP({ secret: Secret.fromBase32(ownerSecret) }).generate();
  const ownerCodes = await call("TwoFactor_confirm", ownerSession, "POST", "/api/v1/users/me/two-factor/confirm", { code: ownerCode });
  secrets.push(...(ownerCodes as unknown as { recoveryCodes: string[] }).recoveryCodes);
  await call("Users_setTwoFactorRequirement", ownerSession, "PUT", "/api/v1/users/two-factor-requirement", { required: true });
  // The owner changes their password: audited, neither password in the event.
  const newPassword = "an audited replacement passphrase";
  secrets.push(newPassword);
  await call("Passwords_change", ownerSession, "POST", "/api/v1/users/me/password", { currentPassword: password, newPassword });
  // A reset link issued by hand, and used: neither the token nor the password in the events.
  const reset = (await call("PasswordResets_issueReset", ownerSession, "POST", `/api/v1/users/${owner.userId}/password-reset`)) as {
    resetToken: string;
  };
  const resetPassword = "an audited passphrase after a reset";
  secrets.push(reset.resetToken, resetPassword);
  await call("PasswordResets_confirmReset", anonymous, "POST", "/api/v1/users/password-reset/confirm", {
    token: reset.resetToken,
    password: resetPassword,
  });
  return { done, secrets, person: { userId: invitation.userId!, email: person } };
}

// Every audited operation of the document, one after another (argon2 hashes, sign-ins and two-factor steps
// among them): longer than the suite's default 30 s beside another file on 2 cores.
describe("the audit log", { timeout: 120_000 }, () => {
  it("records one event per successful change of every audited operation of the document, none with a secret", async () => {
    const a = await server().account();
    const op = await server().operator();
    const { done, secrets, person } = await changeEverything(a, op);

    // Every audited operation of the document was exercised (a new one must be added above).
    const audited = documentOperations(loadDocument())
      .filter((o) => o.path.startsWith("/api/v1/") && isAudited(o.method.toUpperCase(), o.operationId))
      .map((o) => o.operationId);
    expect([...new Set(done)].sort()).toEqual(audited.sort());

    const all = await events(op);
    for (const action of audited)
      expect(all.filter((e) => e.action === action).length, action).toBe(done.filter((d) => d === action).length);
    const raw = JSON.stringify(await server().db("audit_events").select());
    for (const secret of secrets) expect(raw).not.toContain(secret);

    const renamed = all.find((e) => e.action === "Webhooks_update")!;
    expect(renamed).toMatchObject({
      actor: { type: "account", keyId: a.keyId },
      accountId: a.accountId,
      status: 200,
      requestId: expect.any(String),
    });
    const weighted = all.find((e) => e.action === "OperatorAccounts_update")!;
    expect(weighted).toMatchObject({ actor: { type: "operator", keyId: op.keyId, email: null }, resourceId: weighted.accountId });
    // A person is named by email: every change made signed in as the invited person (the invitation accepted
    // included), and none made with a key.
    const theirs = all.filter((e) => e.actor.keyId === `user:${person.userId}`);
    expect(theirs.map((e) => e.action)).toContain("Users_accept");
    expect(theirs.map((e) => e.actor.email)).toEqual(theirs.map(() => person.email));
    expect(all.filter((e) => !e.actor.keyId?.startsWith("user:")).every((e) => e.actor.email === null)).toBe(true);
  });

  it("records no refused request, single send or webhook test; an account sees its own events alone", async () => {
    const a = await server().account();
    const b = await server().account();
    await a.request("POST", "/api/v1/contacts/groups", { name: "mine" });
    expect((await a.request("POST", "/api/v1/contacts/groups", { name: "mine" })).status).toBe(409);
    expect((await a.request("POST", "/api/v1/contacts", { phone: "not a phone" })).status).toBe(400);
    const later = new Date(Date.now() + 3600_000).toISOString();
    expect(
      (await a.request("POST", "/api/v1/scheduler/schedule", { to: "+14155550511", from: "ACME", body: "x", scheduledAt: later })).status,
    ).toBe(201);
    const mine = await events(a);
    expect(mine.map((e) => e.action)).toEqual(["Groups_create", "keys.create"]);
    expect(mine.every((e) => e.accountId === a.accountId)).toBe(true);
    expect((await events(b)).map((e) => e.action)).toEqual(["keys.create"]);
    const op = await server().operator();
    expect((await events(op, `&accountId=${a.accountId}`)).map((e) => e.action)).toEqual(["Groups_create", "keys.create"]);
    expect(await events(op, `&action=Groups_create&accountId=${a.accountId}`)).toHaveLength(1);
  });

  it("is kept as long as messages (MESSAGE_RETENTION_DAYS), and so are the daily usage counts", async () => {
    const { db } = server();
    const a = await server().account();
    await db("audit_events").insert({
      actor_type: "cli",
      account_id: a.accountId,
      action: "old",
      created_at: new Date(Date.now() - 401 * 86_400_000),
    });
    await db("account_daily_usage").insert({ account_id: a.accountId, day: "2020-01-01", segments_accepted: 5 });
    await applyRetention(db, { messageRetentionDays: 400, deliveryLogRetentionDays: 30, messageBodyRetentionDays: 0, batchSize: 10 });
    expect(await db("audit_events").where({ account_id: a.accountId }).pluck("action")).toEqual(["keys.create"]);
    expect(await db("account_daily_usage").where({ account_id: a.accountId })).toEqual([]);
  });
});
