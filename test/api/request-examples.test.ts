// Generated from the OpenAPI document: every operation's request example (its JSON body and its query
// parameters), sent as a partner would copy it from the reference today — its dates moved to this test's clock
// (test/helpers/examples.ts) — to a running server, by the kind of caller the operation takes. None is refused:
// no 400 (the example breaks the document) and no 422 (the example breaks a rule the document states, such as
// a `scheduledAt` in the past). A new operation is covered without editing this test.
import { beforeAll, describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { queryExample, requestExample } from "../helpers/examples.js";
import { inHours, useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";

const server = useTestServer();

/** A query string as the validator reads arrays (comma-separated, as the code samples write them). */
const queryString = (query: Record<string, unknown>) => {
  const entries = Object.entries(query).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(",") : String(v)]);
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : "";
};

/** `body` with the example's identifiers of resources (a group, a template, an account…) replaced by ours. */
const withOurIds = (body: unknown, ids: Record<string, string>): unknown => {
  if (Array.isArray(body)) return body.map((x) => withOurIds(x, ids));
  if (!body || typeof body !== "object") return body;
  return Object.fromEntries(
    Object.entries(body).map(([k, v]) => {
      if (typeof v === "string" && ids[k]) return [k, ids[k]];
      const single = k.endsWith("Ids") ? ids[k.slice(0, -1)] : undefined;
      if (Array.isArray(v) && single) return [k, v.map(() => single)];
      return [k, withOurIds(v, ids)];
    }),
  );
};

/** Items an example refuses on purpose: the batch's shows how a premium-rate number is refused beside a sent one. */
const DELIBERATE_REFUSALS: Record<string, number> = { Messages_sendBatch: 1 };

describe("the document's request examples", () => {
  let account: TestAccount;
  let operator: TestOperator;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    account = await server().account();
    operator = await server().operator();
    // The operator's examples act on an account of their own.
    const target = await server().account();
    const json = async (res: Promise<Response>) => {
      const r = await res;
      if (r.status >= 300) throw new Error(`setting up: ${r.status} ${await r.text()}`);
      return (await r.json()) as Record<string, string>;
    };
    // The senders the examples name are the account's.
    await account.holds("+14155550101");
    await account.holds("+14155550102");
    const group = await json(account.request("POST", "/api/v1/contacts/groups", { name: "examples" }));
    const contact = await json(account.request("POST", "/api/v1/contacts", { phone: "+14155550170", groupId: group.groupId }));
    const hook = await json(account.request("POST", "/api/v1/webhooks", { name: "examples", url: "http://127.0.0.1:9/x" }));
    const pool = await json(account.request("POST", "/api/v1/sender-pools", { name: "examples", senders: ["ACME"] }));
    const template = await json(account.request("POST", "/api/v1/templates", { name: "examples", body: "Hello {{firstName}}" }));
    const user = await json(
      account.request("POST", "/api/v1/users/invite", { email: `ex-${account.accountId}@example.com`, role: "viewer" }),
    );
    // A campaign that has not started, so that rescheduling it is allowed.
    const campaign = await json(
      account.request("POST", "/api/v1/campaigns", {
        name: "examples",
        message: "Hi {{firstName}}",
        type: "scheduled",
        groupId: group.groupId,
        scheduledAt: inHours(48),
      }),
    );
    const message = await json(
      account.request("POST", "/api/v1/scheduler/schedule", { to: "+14155550171", body: "hi", from: "ACME", scheduledAt: inHours(5) }),
    );
    const credential = await json(
      operator.request("POST", `/api/v1/accounts/${target.accountId}/smpp-credentials`, { systemId: "examples01", password: "ex4mple" }),
    );
    const connector = await json(
      operator.request("POST", "/api/v1/connectors", {
        name: "examples",
        type: "smpp",
        smpp: { host: "127.0.0.1", port: 9, systemId: "x", password: "x" },
        enabled: false,
      }),
    );
    Object.assign(ids, {
      accountId: target.accountId,
      groupId: group.groupId,
      contactId: contact.contactId,
      webhookId: hook.webhookId,
      senderPoolId: pool.senderPoolId,
      templateId: template.templateId,
      userId: user.userId,
      campaignId: campaign.campaignId,
      messageId: message.messageId,
      systemId: credential.systemId,
      connectorId: connector.connectorId,
      keyId: account.keyId,
      name: "examples",
    });
  });

  it("refuses none of them (no 400, no 422), whatever today's date", async () => {
    const operations = documentOperations(loadDocument()).filter(
      (op) => requestExample(op.path, op.method) !== undefined || Object.keys(queryExample(op.path, op.method)).length > 0,
    );
    expect(operations.length).toBeGreaterThan(40);
    const refused: string[] = [];
    for (const op of operations) {
      const caller = (op.operation["x-key-kinds"] ?? ["account"]).includes("account") ? account : operator;
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        if (!ids[name]) throw new Error(`no resource for path parameter ${name} (${op.operationId})`);
        return encodeURIComponent(ids[name]);
      });
      const res = await caller.request(
        op.method.toUpperCase(),
        path + queryString(queryExample(op.path, op.method)),
        withOurIds(requestExample(op.path, op.method), ids),
      );
      const text = await res.text();
      // A batch answers 200 with its refused items counted: none but those refused on purpose.
      const partly =
        res.status === 200 &&
        text.startsWith("{") &&
        ((JSON.parse(text) as { rejected?: number }).rejected ?? 0) > (DELIBERATE_REFUSALS[op.operationId] ?? 0);
      if (res.status === 400 || res.status === 422 || partly) refused.push(`${op.operationId}: ${res.status} ${text.slice(0, 400)}`);
    }
    expect(refused).toEqual([]);
  });
});
