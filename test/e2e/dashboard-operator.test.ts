// The operator view and the keys' scopes in a real browser against a real server and database: an operator
// makes an account, sets its quota and countries, gives it a key (shown once) and a number, and reads the audit
// log; an account makes and revokes its own keys; a `read` key sees lists and nothing that changes anything, a
// `send` key the sending forms alone, a test key a banner saying its messages never reach a carrier.
import type { Page } from "playwright-core";
import smpp, { type PDU } from "smpp";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { receiveInboundMessage } from "../../server/services/inbound.js";
import { audit, browserAvailable, screenshot, openForm, openSettings, signIn, unexpectedProblems, useBrowser } from "../helpers/browser.js";
import { inHours, useTestServer, type TestAccount } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";

const server = useTestServer();
const smppServer = useSmppServer(server);
const browser = useBrowser();
const KEY = /^sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/;

const whoIs = async (key: string) =>
  (await fetch(`${server().baseUrl}/api/v1/key`, { headers: { Authorization: `Bearer ${key}` } })).json() as Promise<{
    kind: string;
    scope: string | null;
    test: boolean;
    accountId: string | null;
  }>;

/** A key of the account made through the API (the account's own full key makes it). */
async function keyOf(a: TestAccount, body: { name: string; scope: "full" | "send" | "read"; test?: boolean }) {
  const res = await a.request("POST", "/api/v1/keys", body);
  expect(res.status).toBe(201);
  return (await res.json()) as { key: string; keyId: string };
}

/** The accessible names of the buttons in the page's main content. */
const buttonsOf = (page: Page) =>
  page
    .locator("main")
    .getByRole("button")
    .evaluateAll((buttons) => buttons.map((b) => (b.getAttribute("aria-label") ?? b.textContent ?? "").trim()));

/** What a button that changes something, or opens a form that does ("New message"), is called on any account page. */
const CHANGING =
  /^(Schedule|Send|Cancel|Delete|Add|Create|Save|Revoke|Remove|Rotate|Reveal|Import|Edit|Enable|Redeliver|Opt out|Change events|Assign|Take back|New)/;

describe.skipIf(!browserAvailable)("dashboard: operator view and key scopes", { timeout: 90_000 }, () => {
  it("an operator makes an account, sets its quota and countries, gives it a key (shown once), numbers and SMPP credentials; the list shows its usage", async () => {
    const { baseUrl, operator } = server();
    const op = await operator();
    const name = `shop-${Date.now()}`;
    const page = await browser().newPage({ locale: "en-US", permissions: ["clipboard-read", "clipboard-write"] });
    await signIn(page, baseUrl, op.key, "/dashboard/operator/accounts");
    await page.getByRole("heading", { name: "Accounts", level: 1 }).waitFor();

    await openForm(page, "New account");
    await page.getByLabel("Account name").fill(name);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: `Account “${name}”`, level: 1 }).waitFor();
    const accountId = new URL(page.url()).pathname.split("/").at(-1)!;
    expect(await page.getByTestId("account-usage").innerText()).toBe("no quota");

    // Guards: a daily quota and two countries, typed loosely.
    await page.getByLabel("Daily segment quota").fill("1000");
    await page.getByLabel("Allowed countries").fill("us, ca");
    await page.getByRole("button", { name: "Save limits" }).click();
    await page.getByText(`Limits of “${name}” saved.`).waitFor();
    expect(await page.getByLabel("Allowed countries").inputValue()).toBe("US, CA");
    expect(await page.getByTestId("account-usage").innerText()).toBe("0 of 1,000 segments today");

    // A key: shown once, in a field to copy; it works with the scope chosen.
    await page.getByLabel("Key name (optional)").fill("backend");
    await page.getByLabel("Scope").selectOption("send");
    await page.getByRole("button", { name: "Create key" }).click();
    const keyField = page.getByLabel("The new API key");
    await keyField.waitFor();
    const key = await keyField.inputValue();
    expect(key).toMatch(KEY);
    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByText("Key copied to the clipboard.").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(key);
    expect(await whoIs(key)).toMatchObject({ kind: "account", scope: "send", test: false, accountId });
    const keyId = key.split("_")[1]!;
    const keyRow = page.locator(`tr[data-key-id="${keyId}"]`);
    await keyRow.getByRole("cell", { name: "send", exact: true }).waitFor();
    await page.getByRole("button", { name: "I have stored it" }).click();
    await keyField.waitFor({ state: "detached" });

    // Numbers: one assigned, another assigned and taken back.
    for (const number of ["+14155550142", "+14155550143"]) {
      await page.getByLabel("Phone number").fill(number);
      await page.getByRole("button", { name: "Assign number" }).click();
      await page.getByText(`Number ${number} assigned`).waitFor();
      await page.locator(`tr[data-number="${number}"]`).getByRole("cell", { name: "the operator" }).waitFor();
    }
    await page.getByRole("button", { name: "Take back number +14155550143" }).click();
    await page.getByRole("dialog", { name: "Take back number +14155550143?" }).getByRole("button", { name: "Take back number" }).click();
    await page.locator('tr[data-number="+14155550143"]').waitFor({ state: "detached" });

    // SMPP credentials: a password over SMPP 3.4's 8 characters is refused, never cut short; given (the password
    // shown once, to hand over), listed, deleted.
    const systemId = `op${Date.now() % 1e9}`;
    await page.getByLabel("system_id").fill(systemId);
    await page.getByLabel("Password").fill("much-too-long");
    await page.getByRole("button", { name: "Give SMPP credentials" }).click();
    await page.getByRole("alert").getByText("Password", { exact: false }).waitFor();
    expect(await page.locator(`tr[data-system-id="${systemId}"]`).count()).toBe(0);
    await page.getByLabel("Password").fill("s3cret!");
    await page.getByLabel("Binds at once").fill("2");
    await page.getByRole("button", { name: "Give SMPP credentials" }).click();
    await page.getByText(`SMPP credentials ${systemId} made`).waitFor();
    // The password handed over is shown this once, beside the notice.
    expect(await page.getByTestId("smpp-password-once").innerText()).toBe("s3cret!");
    const smppRow = page.locator(`tr[data-system-id="${systemId}"]`);
    await smppRow.getByRole("cell", { name: "0 of up to 2" }).waitFor();
    expect(await smppRow.innerText()).not.toContain("s3cret!");
    await screenshot(page, "dashboard-operator-account");
    await page.getByRole("button", { name: `Delete SMPP credentials ${systemId}` }).click();
    await page
      .getByRole("dialog", { name: `Delete SMPP credentials ${systemId}?` })
      .getByRole("button", { name: "Delete credentials" })
      .click();
    await smppRow.waitFor({ state: "detached" });
    await page.getByText(`SMPP credentials ${systemId} deleted`).waitFor();

    // A fresh page: the key's secret is nowhere (the list has its id alone).
    await page.reload();
    await keyRow.waitFor();
    expect(await page.content()).not.toContain(key);

    // The key sends within the guards: a US number counts toward the quota, a UK one is refused.
    const send = (to: string) =>
      fetch(`${baseUrl}/api/v1/scheduler/schedule`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ to, from: "ACME", body: "Your order shipped", scheduledAt: inHours(1) }),
      });
    expect((await send("+14155550123")).status).toBe(201);
    expect((await send("+447911123456")).status).not.toBe(201);

    await page.getByRole("link", { name: "← Accounts" }).click();
    const row = page.locator(`tr[data-account="${name}"]`);
    await row.getByRole("cell", { name: "1 of 1,000 segments today" }).waitFor();
    expect(await row.getByRole("cell").nth(1).innerText()).toBe("no");
    await screenshot(page, "dashboard-operator-accounts");

    // Suspended: the list says so in words.
    await row.getByRole("link", { name }).click();
    await page.getByLabel("Suspended").check();
    // Blocked destinations, beside the deployment's: saved as prefixes.
    await page.getByLabel("Blocked destinations").fill("+4470, +882");
    await page.getByRole("button", { name: "Save limits" }).click();
    await page.getByText(`Limits of “${name}” saved.`).waitFor();
    expect(await page.getByLabel("Blocked destinations").inputValue()).toBe("+4470, +882");
    await page.getByTestId("account-state").getByText("Suspended").waitFor();
    await page.getByRole("link", { name: "← Accounts" }).click();
    await row.getByRole("cell", { name: "yes", exact: true }).waitFor();
    // The one refusal asked for: the SMPP password over 8 characters (400).
    expect(unexpectedProblems(page.problems, 400)).toEqual([]);
    await page.context().close();
  });

  it("an account key makes a read key on Settings → API keys, shown once, and revokes another key, never itself", async () => {
    const { baseUrl, account, operator } = server();
    const a = await account();
    const old = await keyOf(a, { name: "old integration", scope: "send" });
    // A quota, and one segment used: the page says how much is left today.
    const op = await operator();
    expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { dailySegmentQuota: 1000 })).status).toBe(200);
    const sent = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550123", from: "ACME", body: "hello", scheduledAt: inHours(1) },
    });
    expect(sent.response.status).toBe(201);

    // SMPP credentials the operator gave, with an application bound: the account sees them, read only.
    const systemId = `own${Date.now() % 1e9}`;
    await giveSmppCredentials(server, a.accountId, { systemId, password: "pw" });
    const client = smpp.connect({ url: `smpp://127.0.0.1:${smppServer().port}` });
    const bound = await new Promise<PDU>((resolve) => client.bind_transceiver({ system_id: systemId, password: "pw" }, resolve));
    expect(bound.command_status).toBe(0);

    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key);
    await openSettings(page, "API keys");
    await page.getByRole("heading", { name: "Settings → API keys", level: 1 }).waitFor();
    await page.getByText("Today (UTC): 1 of 1,000 segments.").waitFor();
    const smppRow = page.locator(`tr[data-system-id="${systemId}"]`);
    await smppRow.getByRole("cell", { name: /^1 of up to 4/ }).waitFor();
    await smppRow.getByText("transceiver from 127.0.0.1").waitFor();
    expect(await smppRow.getByRole("button").count()).toBe(0);
    client.destroy();

    // The signed-in key is marked and cannot be revoked from here; the other one can.
    const mine = page.locator(`tr[data-key-id="${a.keyId}"]`);
    await mine.getByText("this key").waitFor();
    expect(await mine.getByRole("button").count()).toBe(0);
    await page.getByRole("button", { name: "Revoke key old integration" }).waitFor();

    await openForm(page, "New key");
    await page.getByLabel("Key name (optional)").fill("reporting");
    await page.getByLabel("Scope").selectOption("read");
    await page.getByRole("button", { name: "Create key" }).click();
    const keyField = page.getByLabel("The new API key");
    await keyField.waitFor();
    const key = await keyField.inputValue();
    expect(key).toMatch(KEY);
    expect(await whoIs(key)).toMatchObject({ kind: "account", scope: "read", test: false, accountId: a.accountId });
    const created = page.locator(`tr[data-key-id="${key.split("_")[1]}"]`);
    await created.getByRole("cell", { name: "read", exact: true }).waitFor();
    await screenshot(page, "dashboard-keys-created");

    await page.getByRole("button", { name: "Revoke key old integration" }).click();
    await page.getByRole("dialog", { name: "Revoke key old integration?" }).getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("Key old integration revoked").waitFor();
    await page.locator(`tr[data-key-id="${old.keyId}"]`).waitFor({ state: "detached" });
    expect((await fetch(`${baseUrl}/api/v1/key`, { headers: { Authorization: `Bearer ${old.key}` } })).status).toBe(401);
    expect((await whoIs(a.key)).kind).toBe("account");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("an account sees its balance, its ledger and each message's price (Settings → Billing, the message's page)", async () => {
    const { baseUrl, account, operator } = server();
    const a = await account();
    const op = await operator();
    const list = `billing-${Date.now() % 1e9}`;
    expect(
      (await op.request("PUT", `/api/v1/price-lists/${list}`, { currency: "USD", entries: [{ country: "US", pricePerSegment: 7500 }] }))
        .status,
    ).toBe(201);
    expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: list, billing: "prepaid" })).status).toBe(200);
    expect((await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 5_000_000, note: "top-up" })).status).toBe(201);
    const sent = await a.request("POST", "/api/v1/messages", { to: "+12125550123", from: "ACME", body: "priced" });
    expect(sent.status).toBe(201);
    const { messageId } = (await sent.json()) as { messageId: string };

    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key);
    await openSettings(page, "Billing");
    await page.getByRole("heading", { name: "Settings → Billing", level: 1 }).waitFor();
    await page.getByTestId("balance").getByText("4.9925 USD").waitFor();
    await page.getByTestId("available").getByText("4.9925 USD").waitFor();
    // Said once: the card's heading, not a label under it too.
    expect(await page.getByRole("main").getByText("Balance", { exact: true }).count()).toBe(1);
    await page.getByRole("region", { name: "Balance" }).getByTestId("balance").waitFor();
    const ledger = page.getByRole("table", { name: "Every debit and credit of the account, newest first" });
    await ledger.getByRole("row", { name: /Message charged message -0\.0075 USD 4\.9925 USD/ }).waitFor();
    await ledger.getByRole("row", { name: /Credit \(top-up\) 5\.00 USD 5\.00 USD/ }).waitFor();
    await screenshot(page, "dashboard-billing");
    await ledger.getByRole("link", { name: "message" }).click();
    await page.waitForURL(`**/dashboard/messages/${messageId}`);
    await page.getByTestId("message-price").getByText("0.0075 USD (1 segment at 0.0075 USD)").waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("a read key sees the lists but no form or button that changes anything", async () => {
    const { baseUrl, account, db } = server();
    const a = await account();
    const group = (await a.client.POST("/api/v1/contacts/groups", { body: { name: "Regulars" } })).data!;
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550101", firstName: "Ada", groupId: group.groupId } });
    const message = (
      await a.client.POST("/api/v1/scheduler/schedule", {
        body: { to: "+14155550101", from: "ACME", body: "See you tomorrow", scheduledAt: inHours(24) },
      })
    ).data!;
    const campaign = (
      await a.client.POST("/api/v1/campaigns", {
        body: { name: "Tomorrow", message: "Hi {{firstName}}!", type: "scheduled", groupId: group.groupId, scheduledAt: inHours(24) },
      })
    ).data!;
    await a.client.POST("/api/v1/webhooks", { body: { name: "receipts", url: "http://127.0.0.1:9/dlr" } });
    await a.holds("+14155550150");
    await a.client.PUT("/api/v1/opt-outs/{phone}", { params: { path: { phone: "+14155550199" } } });
    await receiveInboundMessage(
      db,
      createLogger("silent"),
      { from: "+14155550101", to: "+14155550150", body: "Thanks!", receivedAt: new Date() },
      { autoReplyMaxPerHour: 100 },
    );
    const reader = await keyOf(a, { name: "viewer", scope: "read" });

    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, reader.key);
    await page.getByText("Read-only key: you can look at everything here but change nothing.").waitFor();
    const pages: [string, string, string][] = [
      ["/messages", "Messages", `[data-message-id="${message.messageId}"]`],
      [`/messages/${message.messageId}`, "Message to +14155550101", "ol.timeline li"],
      ["/inbox", "Inbox", '[data-phone="+14155550101"]'],
      ["/conversations/%2B14155550101", "Conversation with +14155550101", '[data-testid="opt-out-state"]'],
      ["/contacts", "Contacts & groups", '[data-phone="+14155550101"]'],
      ["/campaigns", "Campaigns", '[data-campaign="Tomorrow"]'],
      [`/campaigns/${campaign.campaignId}`, "Campaign “Tomorrow”", '[data-stat="total"]'],
      ["/settings/webhooks", "Settings → Webhooks", '[data-webhook="receipts"]'],
      ["/settings/numbers", "Settings → Numbers", '[data-number="+14155550150"]'],
      ["/settings/opt-outs", "Settings → Opt-outs", 'tr[data-phone="+14155550199"]'],
      ["/settings/replies", "Settings → Replies", "text=Current settings"],
      ["/settings/sending", "Settings → Sending", "text=Current settings"],
      ["/settings/keys", "Settings → API keys", `tr[data-key-id="${a.keyId}"]`],
      ["/audit-log", "Audit log", '[data-action="Contacts_create"]'],
    ];
    for (const [path, heading, loaded] of pages) {
      await page.goto(`${baseUrl}/dashboard${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.locator(loaded).first().waitFor();
      await page.waitForLoadState("networkidle");
      const changing = (await buttonsOf(page)).filter((name) => CHANGING.test(name));
      expect(changing, path).toEqual([]);
      // No form but the audit log's filter: nothing to schedule, add, edit or import.
      expect(await page.locator("main form").count(), path).toBe(path === "/audit-log" ? 1 : 0);
    }
    await page.goto(`${baseUrl}/dashboard/contacts`);
    await page.locator('[data-phone="+14155550101"]').getByText("Group: Regulars").waitFor();
    await screenshot(page, "dashboard-read-key-contacts");
    // The conversation asks whether the number opted out: 404, it did not.
    expect(unexpectedProblems(page.problems, 404)).toEqual([]);
    await page.context().close();
  });

  it("a send key sees the sending forms alone; a test key is told its messages never reach a carrier", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const sender = await keyOf(a, { name: "sender", scope: "send" });
    const tester = await keyOf(a, { name: "tester", scope: "full", test: true });

    const page = await browser().newPage();
    await signIn(page, baseUrl, sender.key, "/dashboard/messages");
    await page.getByText("Send key:").waitFor();
    await openForm(page, "New message");
    await page.getByRole("button", { name: "Send now" }).waitFor();
    await page.getByRole("link", { name: "Campaigns" }).click();
    await openForm(page, "New campaign");
    await page.getByRole("heading", { name: "New campaign" }).waitFor();
    await page.getByRole("link", { name: "Contacts", exact: true }).click();
    await page.getByRole("heading", { name: "Contacts & groups", level: 1 }).waitFor();
    await page.getByText("No groups yet.").waitFor();
    expect(await page.locator("main form").count()).toBe(0);
    await openSettings(page, "API keys");
    await page.locator(`tr[data-key-id="${sender.keyId}"]`).waitFor();
    expect((await buttonsOf(page)).filter((name) => CHANGING.test(name))).toEqual([]);
    expect(await page.getByText("Test key: messages never reach a carrier").count()).toBe(0);
    await page.getByRole("button", { name: "Sign out" }).click();

    await signIn(page, baseUrl, tester.key);
    await page.getByText("Test key: messages never reach a carrier").waitFor();
    // A test key makes test keys only: the form says so.
    await openSettings(page, "API keys");
    await openForm(page, "New key");
    await page.getByText("it makes test keys only").waitFor();
    expect(await page.getByRole("checkbox", { name: /Test key/ }).isChecked()).toBe(true);
    expect(await page.getByRole("checkbox", { name: /Test key/ }).isDisabled()).toBe(true);
    await screenshot(page, "dashboard-test-key");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("the audit log lists the operator's changes, filtered by action and by account; the account sees its own", async () => {
    const { baseUrl, operator } = server();
    const op = await operator();
    const name = `audited-${Date.now()}`;
    const json = async (res: Response) => {
      expect(res.status).toBeLessThan(300);
      return (await res.json()) as { accountId: string; key: string };
    };
    const { accountId } = await json(await op.request("POST", "/api/v1/accounts", { name }));
    await json(await op.request("PATCH", `/api/v1/accounts/${accountId}`, { dailySegmentQuota: 500, senderIds: ["ACME"] }));
    const { key } = await json(await op.request("POST", `/api/v1/accounts/${accountId}/keys`, { name: "backend" }));
    await json(await op.request("POST", `/api/v1/accounts/${accountId}/numbers`, { phoneNumber: "+14155550160" }));

    const page = await browser().newPage();
    await signIn(page, baseUrl, op.key, "/dashboard/operator/audit-log");
    await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
    for (const action of [
      "OperatorAccounts_create",
      "OperatorAccounts_update",
      "OperatorAccountKeys_create",
      "OperatorAccountNumbers_assign",
    ]) {
      const row = page.locator(`tr[data-action="${action}"]`).filter({ has: page.getByRole("link", { name }) });
      await row.waitFor();
      const actor = row.getByRole("cell").nth(1);
      expect(await actor.innerText()).toMatch(/^operator key /);
      expect(await actor.locator("code").getAttribute("data-id")).toBe(op.keyId);
      expect(await row.getByRole("cell").nth(5).innerText()).toBe(action.endsWith("update") ? "200" : "201");
    }
    await screenshot(page, "dashboard-operator-audit");

    await page.getByLabel("Action").fill("OperatorAccounts_update");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => new URL(page.url()).search).toBe("?action=OperatorAccounts_update");
    // The filtered page replaces the table: wait until it holds rows again, and only updates.
    await expect
      .poll(async () => {
        const actions = await page.locator("main tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
        return [...new Set(actions)];
      })
      .toEqual(["OperatorAccounts_update"]);

    // From the account's page: its events alone.
    await page.goto(`${baseUrl}/dashboard/operator/accounts/${accountId}`);
    await page.getByRole("link", { name: "Audit log of this account" }).click();
    await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
    expect(await page.getByLabel("Account").inputValue()).toBe(accountId);
    await expect.poll(() => page.locator("main tbody tr").count()).toBe(4);
    await page.context().close();

    // The account's own key sees the changes made to it, with no account column.
    const mine = await browser().newPage();
    await signIn(mine, baseUrl, key);
    await openSettings(mine, "Audit log");
    await mine.locator('tr[data-action="OperatorAccounts_update"]').waitFor();
    expect(await mine.getByRole("columnheader", { name: "Account" }).count()).toBe(0);
    expect(mine.problems).toEqual([]);
    await mine.context().close();
  });

  it("has no WCAG 2.1 A/AA violations that axe can find on the operator's pages and the keys and audit pages", async () => {
    const { baseUrl, operator, account, db } = server();
    const op = await operator();
    const a = await account();
    await a.holds("+14155550170");
    await receiveInboundMessage(
      db,
      createLogger("silent"),
      { from: "+14155550171", to: "+14155550179", body: "Anyone there?", receivedAt: new Date() },
      { autoReplyMaxPerHour: 100 },
    );
    const reader = await keyOf(a, { name: "viewer", scope: "read" });
    const page = await browser().newPage();
    const found: string[] = [];
    await signIn(page, baseUrl, op.key);
    // The accounts page with its form open.
    const pages: [string, string, string, string?][] = [
      ["accounts", "/operator/accounts", "tr[data-account]", "New account"],
      ["account", `/operator/accounts/${a.accountId}`, 'tr[data-number="+14155550170"]'],
      ["unrouted", "/operator/unrouted-messages", "text=Anyone there?"],
      ["operator audit", "/operator/audit-log", "tr[data-action]"],
    ];
    for (const [name, path, loaded, form] of pages) {
      await page.goto(`${baseUrl}/dashboard${path}`);
      await page.locator(loaded).first().waitFor();
      await page.waitForLoadState("networkidle");
      if (form) await openForm(page, form);
      found.push(...(await audit(page, name)));
    }
    // A new key on view.
    await page.goto(`${baseUrl}/dashboard/operator/accounts/${a.accountId}`);
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("The new API key").waitFor();
    found.push(...(await audit(page, "new key")));
    await page.getByRole("button", { name: "Sign out" }).click();

    await signIn(page, baseUrl, reader.key);
    for (const [name, path, loaded] of [
      ["keys (read key)", "/settings/keys", "tr[data-key-id]"],
      ["sending (read key)", "/settings/sending", "text=Current settings"],
      ["audit", "/audit-log", "tr[data-action]"],
    ] as const) {
      await page.goto(`${baseUrl}/dashboard${path}`);
      await page.locator(loaded).first().waitFor();
      await page.waitForLoadState("networkidle");
      found.push(...(await audit(page, name)));
    }
    expect(found).toEqual([]);
    await page.context().close();
  });
});
