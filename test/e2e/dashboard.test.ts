// The dashboard in a real browser (Debian's Chromium through playwright-core) against the server on 127.0.0.1
// with a real database and an in-process worker: sign in; schedule a message ("Send later") and cancel it; add a
// webhook, reveal its secret and send a test receipt that a local receiver verifies with that secret.
import type { components } from "../../generated/api.js";
import { describe, expect, it } from "vitest";
import { verifyReceipt } from "../../client/index.js";
import { revokeApiKey } from "../../server/operator/index.js";
import { createOperatorKey } from "../../server/operator/index.js";
import { browserAvailable, openKeySignIn, screenshot, openForm, openSettings, signIn, useBrowser } from "../helpers/browser.js";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard", { timeout: 60_000 }, () => {
  it("signs in with an API key: a wrong key gets a clear message, the key stays for the tab only", async () => {
    const { baseUrl, account } = server();
    const { key, keyId } = await account();
    const page = await browser().newPage();

    const response = await page.goto(`${baseUrl}/dashboard`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    await openKeySignIn(page);
    const input = page.getByLabel("API key");
    await input.fill("not a key");
    await input.press("Enter");
    await page.getByText("That is not an API key").waitFor();

    // Well-formed, but no such key: the server's 401 becomes a sentence.
    await input.fill(`sms_${"A".repeat(12)}_${"b".repeat(32)}`);
    await input.press("Enter");
    await page.getByText("This API key was not accepted").waitFor();
    await screenshot(page, "dashboard-signin-wrong-key");

    // An operator key opens the operator view: its own navigation, its Overview first.
    await input.fill((await createOperatorKey(server().db, "dashboard")).key);
    await input.press("Enter");
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Unrouted messages" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard/operator/overview");
    expect(await page.getByRole("link", { name: "Messages", exact: true }).count()).toBe(0);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    // An account key signed in where the operator was goes to the account's own first page, its Overview.
    await openKeySignIn(page);
    await input.fill(key);
    await input.press("Enter");
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(await page.evaluate<string[]>("Object.values(sessionStorage)")).toEqual([key]);
    expect(new URL(page.url()).pathname).toBe("/dashboard/overview");

    // A reload keeps the session; a deep link is served the page too (the router decides what to show).
    await page.goto(`${baseUrl}/dashboard/settings/webhooks`);
    await page.getByRole("heading", { name: "Settings → Webhooks", level: 1 }).waitFor();
    await screenshot(page, "dashboard-signed-in");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.evaluate<number>("sessionStorage.length")).toBe(0);
    // A key revoked while signed in: the next call signs out, saying why.
    await signIn(page, baseUrl, key, "/dashboard/messages");
    // The page's first load must be over (Refresh is disabled while it runs), or that load would be the call
    // that meets the revoked key, and the button would be gone before the click.
    const refresh = page.getByRole("button", { name: "Refresh", disabled: false });
    await refresh.waitFor();
    await revokeApiKey(server().db, keyId);
    await refresh.click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByText("The API key is no longer accepted (revoked or changed). Sign in again.").waitFor();
    expect(await page.evaluate<number>("sessionStorage.length")).toBe(0);

    // Nothing was blocked by the Content-Security-Policy, and no script failed.
    expect(page.problems.filter((p) => !/status of (401|403)\b/.test(p))).toEqual([]);
    await page.context().close();
  });

  it("schedules a message in the browser's time zone, sent as UTC, and cancels it", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    // New York: 09:30 local on 1 July is 13:30 UTC (daylight saving time).
    const page = await browser().newPage({ timezoneId: "America/New_York", locale: "en-US" });
    await signIn(page, baseUrl, key, "/dashboard/messages");

    // The page opens with its list, the form a click away: "New message" shows it with the focus in its first field.
    await page.getByText("No messages yet.").waitFor();
    const newMessage = page.getByRole("button", { name: "New message" });
    expect(await newMessage.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByRole("form", { name: "Send a message" }).count()).toBe(0);
    expect(await page.getByLabel("To", { exact: true }).isVisible()).toBe(false);
    await newMessage.click();
    await page.getByRole("form", { name: "Send a message" }).waitFor();
    expect(await newMessage.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => page.evaluate<string>("document.activeElement?.id ?? ''")).toBe("msg-to");

    const year = new Date().getUTCFullYear() + (new Date().getUTCMonth() >= 5 ? 1 : 0);
    await page.getByLabel("To", { exact: true }).fill("+1 415 555 0123");
    await page.getByLabel("From", { exact: true }).fill("ACME");
    await page.getByLabel("Message", { exact: true }).fill("Your table is ready");
    await page.getByText("1 segment · GSM-7 · 141 characters left").waitFor();
    // Sent now unless "Send later" is chosen, which shows the time.
    expect(await page.getByLabel("Send at").count()).toBe(0);
    await page.getByLabel("Send later").check();
    await page.getByRole("button", { name: "Schedule", exact: true }).waitFor();
    await page.getByLabel("Send at").fill(`${year}-07-01T09:30`);
    await page.getByText("America/New_York (UTC-04:00)").waitFor();
    await page.getByText(`${year}-07-01T13:30:00.000Z`).waitFor();
    await page.getByRole("button", { name: "Schedule", exact: true }).click();
    await page.getByText("Message scheduled for").waitFor();
    // The form stays open for the next message, its text emptied; pressing the button again hides it.
    expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("");
    expect(await newMessage.getAttribute("aria-expanded")).toBe("true");
    await newMessage.click();
    await page.getByLabel("To", { exact: true }).waitFor({ state: "hidden" });
    expect(await newMessage.getAttribute("aria-expanded")).toBe("false");

    const listed = await client.GET("/api/v1/messages");
    expect(listed.data!.data).toHaveLength(1);
    const message = listed.data!.data[0]! as components["schemas"]["OutboundMessage"];
    expect(message.scheduledAt).toBe(`${year}-07-01T13:30:00.000Z`);
    expect(message.to).toBe("+14155550123");
    const row = page.locator(`[data-message-id="${message.messageId}"]`);
    await row.getByText("scheduled", { exact: true }).waitFor();

    // Escape closes the confirmation without cancelling.
    await row.getByRole("button", { name: /Cancel message to/ }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this message?" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: message.messageId } } })).data!.status).toBe(
      "scheduled",
    );

    await row.getByRole("button", { name: /Cancel message to/ }).click();
    await dialog.getByRole("button", { name: "Cancel message" }).click();
    await row.getByText("cancelled", { exact: true }).waitFor();
    expect((await client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: message.messageId } } })).data!.status).toBe(
      "cancelled",
    );

    // Its timeline: scheduled, then cancelled.
    await row.getByRole("link", { name: "+14155550123" }).click();
    const timeline = page.locator("ol.timeline li");
    await expect.poll(() => timeline.allInnerTexts()).toEqual([expect.stringMatching(/^scheduled/), expect.stringMatching(/^cancelled/)]);
    await screenshot(page, "dashboard-message-cancelled");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("adds a webhook, reveals its secret and sends a test receipt the receiver verifies with it; rotates; redelivers", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    const receiver = await startReceiver();
    try {
      const page = await browser().newPage({ permissions: ["clipboard-read", "clipboard-write"] });
      await signIn(page, baseUrl, key);
      await openSettings(page, "Webhooks");
      await openForm(page, "New webhook");
      await page.getByLabel("Name").fill("local receiver");
      await page.getByLabel("URL").fill(receiver.url);
      await page.getByLabel("URL").press("Enter");
      await page.getByText("Webhook “local receiver” added").waitFor();

      // A fresh page: the secret is hidden until revealed.
      await page.reload();
      const card = page.locator('[data-webhook="local receiver"]');
      await card.getByText("Hidden.").waitFor();
      await card.getByRole("button", { name: "Reveal secret of local receiver" }).click();
      const secretText = card.getByTestId("webhook-secret");
      await secretText.waitFor();
      const secret = (await secretText.innerText()).trim();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await card.getByRole("button", { name: "Copy secret" }).click();
      await card.getByText("Secret copied to the clipboard.").waitFor();
      expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);

      await card.getByRole("button", { name: "Send test receipt to local receiver" }).click();
      await card.getByText(/Test receipt delivered: the receiver answered 200/).waitFor();
      const [test] = await receiver.waitFor("the test receipt", (all) => all.length === 1);
      expect(test!.json.event).toBe("dlr.test");
      expect(verifyReceipt(test!.body, test!.headers, secret)).toBe(true);
      expect(verifyReceipt(test!.body, test!.headers, `whsec_${Buffer.alloc(32).toString("base64")}`)).toBe(false);
      await screenshot(page, "dashboard-webhook-test-receipt");

      // Rotate: the new secret is shown and signs the next receipt.
      await card.getByRole("button", { name: "Rotate secret of local receiver" }).click();
      await page.getByRole("dialog", { name: "Rotate the signing secret?" }).getByRole("button", { name: "Rotate secret" }).click();
      await expect.poll(async () => (await secretText.innerText()).trim()).not.toBe(secret);
      const rotated = (await secretText.innerText()).trim();
      await card.getByRole("button", { name: "Send test receipt to local receiver" }).click();
      const all = await receiver.waitFor("the second test receipt", (r) => r.length === 2);
      expect(verifyReceipt(all[1]!.body, all[1]!.headers, rotated)).toBe(true);
      const stdSignatures = String(all[1]!.headers["webhook-signature"]).split(" ");
      expect(stdSignatures).toHaveLength(2); // old and new, for 24 h

      // A real message's receipts appear in the delivery log; one is redelivered.
      const scheduled = await client.POST("/api/v1/scheduler/schedule", {
        body: { to: "+14155550188", from: "ACME", body: "hello", scheduledAt: new Date(Date.now() + 1500).toISOString() },
      });
      const messageId = scheduled.data!.messageId;
      await receiver.waitFor("the sent and delivered receipts", (r) => r.filter((x) => x.json.messageId === messageId).length === 2);
      await card.getByRole("button", { name: "Show delivery log" }).click();
      const log = card.getByRole("region", { name: "Delivery log of local receiver" });
      await log.getByRole("cell", { name: "dlr.delivered", exact: true }).waitFor();
      await log.getByRole("cell", { name: "dlr.sent", exact: true }).waitFor();
      const deliveredRow = log.getByRole("row").filter({ hasText: "dlr.delivered" });
      await deliveredRow.getByRole("button", { name: /^Redeliver/ }).click();
      await card.getByText("Receipt dlr.delivered queued again.").waitFor();
      await receiver.waitFor("the redelivered receipt", (r) => r.filter((x) => x.json.messageId === messageId).length === 3);
      await expect.poll(() => deliveredRow.getByRole("cell").nth(3).innerText(), { timeout: 10_000 }).toBe("2");
      await screenshot(page, "dashboard-webhook-delivery-log");

      await card.getByRole("button", { name: "Delete webhook local receiver" }).click();
      await page.getByRole("dialog", { name: "Delete webhook “local receiver”?" }).getByRole("button", { name: "Delete webhook" }).click();
      await page.getByText("Webhook “local receiver” deleted").waitFor();
      await page.getByText("No webhooks yet.").waitFor();
      expect((await client.GET("/api/v1/webhooks")).data!.data).toEqual([]);
      expect(page.problems).toEqual([]);
      await page.context().close();
    } finally {
      await receiver.close();
    }
  });

  it("opens every page with its list; the creation form is a click away, with the focus in its first field", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    // Something in every list.
    await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550131", from: "ACME", body: "See you soon", scheduledAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    await a.client.POST("/api/v1/campaigns", {
      body: {
        name: "Tomorrow",
        message: "Hello",
        type: "scheduled",
        recipients: ["+14155550131"],
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    await a.client.POST("/api/v1/webhooks", { body: { name: "receipts", url: "http://127.0.0.1:9/dlr" } });
    await a.holds("+14155550132");
    await a.client.PUT("/api/v1/opt-outs/{phone}", { params: { path: { phone: "+14155550133" } } });
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key);
    // The page, a row of its list, and each of its buttons with the form's first field.
    const pages: [string, string, string, [string, string][]][] = [
      ["/messages", "Messages", "[data-message-id]", [["New message", "msg-to"]]],
      ["/campaigns", "Campaigns", '[data-campaign="Tomorrow"]', [["New campaign", "campaign-name"]]],
      ["/settings/webhooks", "Settings → Webhooks", '[data-webhook="receipts"]', [["New webhook", "webhook-name"]]],
      ["/settings/numbers", "Settings → Numbers", 'tr[data-number="+14155550132"]', [["Add a number", "number-phone"]]],
      [
        "/settings/opt-outs",
        "Settings → Opt-outs",
        'tr[data-phone="+14155550133"]',
        [
          ["Add a number", "opt-out-phone"],
          ["Import a file", "opt-out-file"],
        ],
      ],
      ["/settings/keys", "Settings → API keys", `tr[data-key-id="${a.keyId}"]`, [["New key", "create-key-name"]]],
    ];
    for (const [path, heading, row, forms] of pages) {
      await page.goto(`${baseUrl}/dashboard${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.locator(row).first().waitFor();
      for (const [name, field] of forms) {
        const button = page.getByRole("button", { name, exact: true });
        const panelId = (await button.getAttribute("aria-controls"))!;
        const panel = page.locator(`[id="${panelId}"]`);
        expect(await button.getAttribute("aria-expanded"), path).toBe("false");
        expect(await page.locator(`[id="${field}"]`).isVisible(), path).toBe(false);
        // The button, then its panel (hidden), then the list.
        const selectors = JSON.stringify([`[aria-controls="${panelId}"]`, `[id="${panelId}"]`, row]);
        const inOrder = `(([b, p, r]) => !!(b.compareDocumentPosition(p) & 4) && !!(p.compareDocumentPosition(r) & 4))(${selectors}.map((s) => document.querySelector(s)))`;
        expect(await page.evaluate<boolean>(inOrder), path).toBe(true);
        await button.click();
        await panel.waitFor();
        expect(await button.getAttribute("aria-expanded"), path).toBe("true");
        await expect.poll(() => page.evaluate<string>("document.activeElement?.id ?? ''"), { message: path }).toBe(field);
        await button.click();
        await panel.waitFor({ state: "hidden" });
        expect(await button.getAttribute("aria-expanded"), path).toBe("false");
      }
    }
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("works with the keyboard alone", async () => {
    const { baseUrl, account } = server();
    const op = await server().operator();
    const who = uniqueEmail("keyboard");
    await people(server, () => op).userOf(await account(), who, "developer");
    const page = await browser().newPage();
    const focused = () =>
      page.evaluate<string>("(document.activeElement?.tagName ?? '') + ' ' + (document.activeElement?.textContent ?? '').trim()");
    await page.goto(`${baseUrl}/dashboard/`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    // The email field has the focus: type it, Tab, the password, Enter.
    await page.keyboard.type(who);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("A Skip to content");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("A Overview");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("A Inbox");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("A Contacts");
    await page.keyboard.press("Enter");
    // After navigating, the focus is on the new page's heading.
    await expect.poll(focused).toBe("H1 Contacts & groups");

    // A group created and deleted from the keyboard; the confirmation dialog takes the focus and Escape leaves it.
    await page.getByLabel("Name", { exact: true }).focus();
    await page.keyboard.type("Keyboard");
    await page.keyboard.press("Enter");
    const del = page.getByRole("button", { name: "Delete group Keyboard" });
    await del.waitFor();
    await del.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Delete group “Keyboard”?" }).waitFor();
    expect(await focused()).toBe("BUTTON Delete group");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    expect(await focused()).toBe("BUTTON Delete");
    await page.keyboard.press("Enter");
    await expect.poll(focused).toBe("BUTTON Delete group"); // the dialog's first button
    await page.keyboard.press("Enter");
    await page.getByText("Group “Keyboard” deleted.").waitFor();
    await screenshot(page, "dashboard-keyboard");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("fits a phone-width screen in one column", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    // Something on every page.
    const group = (await client.POST("/api/v1/contacts/groups", { body: { name: "Regulars", description: "Come every week" } })).data!;
    await client.POST("/api/v1/contacts", { body: { phone: "+447911123456", firstName: "Ada", groupId: group.groupId } });
    await client.POST("/api/v1/scheduler/schedule", {
      body: {
        to: "+447911123456",
        from: "ACME",
        body: "Your table is ready at 8 pm",
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    await client.POST("/api/v1/campaigns", {
      body: {
        name: "Tomorrow",
        message: "Hi {{firstName}}!",
        type: "scheduled",
        groupId: group.groupId,
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    await client.POST("/api/v1/webhooks", { body: { name: "receipts", url: "http://127.0.0.1:9/dlr" } });
    const page = await browser().newPage({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    await signIn(page, baseUrl, key);
    // With each page's creation form open, so the forms are measured too.
    for (const [link, heading, name, form] of [
      ["Contacts", "Contacts & groups", "dashboard-phone-contacts", undefined],
      ["Campaigns", "Campaigns", "dashboard-phone-campaigns", "New campaign"],
      ["Settings", "Settings → Webhooks", "dashboard-phone-webhooks", "New webhook"],
      ["Messages", "Messages", "dashboard-phone-messages", "New message"],
    ] as const) {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: link, exact: true }).click();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      if (link === "Settings") {
        await page.getByRole("button", { name: "Reveal secret of receipts" }).click();
        await page.getByTestId("webhook-secret").waitFor();
      } else {
        await page
          .getByRole("list")
          .filter({ has: page.getByRole("listitem") })
          .last()
          .waitFor();
      }
      if (form) await openForm(page, form);
      // Nothing wider than the screen: no sideways scrolling.
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      await screenshot(page, name);
    }
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
