// Sending now from the dashboard, in a real browser against a real server, database and worker (the simulator
// delivers): the Messages form sends at once by default (POST /messages without scheduledAt) with a reference,
// its live count follows the text (segments, encoding, room left), a curly quote offers smart encoding and the
// message then carries the straight quote in sentBody; the conversation reply goes out now; the account's
// "Smart encoding by default" ticks the box by itself; a campaign takes smart encoding too.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { browserAvailable, openForm, screenshot, signIn, unexpectedProblems, useBrowser } from "../helpers/browser.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

type Outbound = components["schemas"]["OutboundMessage"];

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

/** About 100 characters with a curly apostrophe: 2 UCS-2 segments, 1 GSM-7 segment once smart-encoded. */
const CURLY = "Your order’s on its way and should arrive tomorrow morning between nine and noon. Thank you again!";

async function outbound(a: TestAccount, query: { reference?: string; phone?: string }): Promise<Outbound[]> {
  const { data } = await a.client.GET("/api/v1/messages", { params: { query: { direction: "outbound", ...query } } });
  return data!.data as Outbound[];
}

async function fillAddresses(page: Page): Promise<void> {
  const form = page.getByRole("form", { name: "Send a message" });
  await form.getByLabel("To", { exact: true }).fill("+14155550161");
  await form.getByLabel("From", { exact: true }).fill("ACME");
}

describe.skipIf(!browserAvailable)("dashboard: send now and smart encoding", { timeout: 90_000 }, () => {
  it("sends now by default: due at the request, then sent and delivered; the count follows the text", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/messages");
    await openForm(page, "New message");
    const form = page.getByRole("form", { name: "Send a message" });
    await fillAddresses(page);

    // The live count: segments, encoding and room left, as typed.
    const text = form.getByLabel("Message", { exact: true });
    const count = page.getByTestId("msg-body-count");
    await text.fill("Hello");
    await expect.poll(() => count.innerText()).toBe("1 segment · GSM-7 · 155 characters left");
    await text.fill("a".repeat(159));
    await expect.poll(() => count.innerText()).toBe("1 segment · GSM-7 · 1 character left");
    await text.press("End");
    await text.press("a");
    await expect.poll(() => count.innerText()).toBe("1 segment · GSM-7 · 0 characters left");
    await text.press("a"); // the 161st: split into 153 + 8
    await expect.poll(() => count.innerText()).toBe("2 segments · GSM-7 · 145 characters left");
    await text.fill("Zażółć gęślą jaźń"); // UCS-2, and no look-alike to replace: no suggestion
    await expect.poll(() => count.innerText()).toBe("1 segment · UCS-2 · 53 characters left");
    expect(await page.getByTestId("msg-body-count-smart").count()).toBe(0);

    // Sent now: no time to choose, the button says so.
    await text.fill("Your table is ready");
    await form.getByLabel("Reference (optional)").fill("table-12");
    expect(await form.getByLabel("Send at").count()).toBe(0);
    expect(await form.getByLabel("Send now").isChecked()).toBe(true);
    const before = Date.now();
    await form.getByRole("button", { name: "Send now" }).click();
    await page.getByText("Message to +14155550161 accepted: it is sent now.").waitFor();
    const after = Date.now();
    const [message, ...others] = await outbound(a, { reference: "table-12" });
    expect(others).toEqual([]);
    expect(message).toMatchObject({ to: "+14155550161", body: "Your table is ready", reference: "table-12", sentBody: null });
    const due = Date.parse(message!.scheduledAt);
    // The server's clock and the test's are the machine's; a little slack for rounding.
    expect(due).toBeGreaterThanOrEqual(before - 1000);
    expect(due).toBeLessThanOrEqual(after + 1000);

    // The list follows it to delivered (the worker sends it, the simulator delivers it).
    const row = page.locator(`[data-message-id="${message!.messageId}"]`);
    await row.locator(".chip-delivered").waitFor({ timeout: 45_000 });
    expect((await outbound(a, { reference: "table-12" }))[0]!.status).toBe("delivered");

    // The Reference filter finds it; its page shows the reference and no "Sent as".
    await a.client.POST("/api/v1/messages", { body: { to: "+14155550162", from: "ACME", body: "Another", reference: "other" } });
    await page.getByLabel("Reference", { exact: true }).fill("table-12");
    await page.getByLabel("Reference", { exact: true }).press("Enter");
    await expect.poll(() => new URL(page.url()).searchParams.get("reference")).toBe("table-12");
    await expect.poll(() => page.locator("ul.rows > li").count()).toBe(1);
    await row.getByRole("link", { name: "+14155550161" }).click();
    await page.getByTestId("message-reference").getByText("table-12").waitFor();
    expect(await page.getByTestId("sent-body").count()).toBe(0);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("offers smart encoding for a curly quote; sent with it, the message's sentBody has the straight quote", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/messages");
    await openForm(page, "New message");
    const form = page.getByRole("form", { name: "Send a message" });
    await fillAddresses(page);
    await form.getByLabel("Message", { exact: true }).fill(CURLY);
    const count = page.getByTestId("msg-body-count");
    await expect.poll(() => count.innerText()).toBe(`2 segments · UCS-2 · ${2 * 67 - CURLY.length} characters left`);
    const suggestion = page.getByTestId("msg-body-count-smart");
    await suggestion
      .getByText("Curly quotes or dashes make this UCS-2 (2 segments). Smart encoding would send it as GSM-7 (1 segment)")
      .waitFor();
    const box = suggestion.getByLabel("Use smart encoding");
    expect(await box.isChecked()).toBe(false); // the account's setting: off
    await box.check();
    await expect.poll(() => count.innerText()).toBe(`1 segment · GSM-7 · ${160 - CURLY.length} characters left (smart-encoded)`);
    await screenshot(page, "dashboard-smart-encoding");
    await form.getByLabel("Reference (optional)").fill("smart");
    await form.getByRole("button", { name: "Send now" }).click();
    await page.getByText("accepted: it is sent now.").waitFor();

    const [message] = await outbound(a, { reference: "smart" });
    const straight = CURLY.replace("’", "'");
    expect(message).toMatchObject({ body: CURLY, sentBody: straight, segments: 1, encoding: "GSM-7" });
    await page.getByRole("link", { name: "Open it" }).click();
    await page.getByTestId("sent-body").getByText(straight).waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("a message's page shows its reference, metadata, batch and the text sent; the batch link lists the batch", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const item = { from: "ACME", body: CURLY, smartEncoding: true, scheduledAt: new Date(Date.now() + 86_400_000).toISOString() };
    const { data: batch } = await a.client.POST("/api/v1/messages/batch", {
      body: {
        messages: [
          { ...item, to: "+14155550191", reference: "A-1042", metadata: { orderId: "A-1042", customer: "7731" } },
          { ...item, to: "+14155550192" },
        ],
      },
    });
    expect(batch!.accepted).toBe(2);
    await a.client.POST("/api/v1/messages", { body: { to: "+14155550193", from: "ACME", body: "Not in the batch" } });
    const first = batch!.results[0]!;
    if (!("messageId" in first)) throw new Error("the first item was refused");
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, `/dashboard/messages/${first.messageId}`);
    await page.getByTestId("message-reference").getByText("A-1042").waitFor();
    const metadata = page.getByRole("table", { name: "Metadata of the message" });
    await metadata.getByRole("row").filter({ hasText: "orderId" }).getByRole("cell", { name: "A-1042" }).waitFor();
    await metadata.getByRole("row").filter({ hasText: "customer" }).getByRole("cell", { name: "7731" }).waitFor();
    await page.getByTestId("sent-body").getByText(CURLY.replace("’", "'")).waitFor();
    await page.getByText(batch!.batchId).waitFor();
    await screenshot(page, "dashboard-message-reference-metadata");
    await page.getByRole("link", { name: "Messages of this batch" }).click();
    await page.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    await expect.poll(() => page.locator("ul.rows > li").count()).toBe(2);
    await page.getByRole("button", { name: "Clear the batch filter" }).click();
    await expect.poll(() => page.locator("ul.rows > li").count()).toBe(3);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("sends a conversation's reply now", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550171" })).status).toBe(201);
    const person = "+14155550172";
    expect((await a.request("POST", "/api/v1/simulator/inbound", { from: person, to: "+14155550171", body: "Open today?" })).status).toBe(
      202,
    );
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, `/dashboard/conversations/${encodeURIComponent(person)}`);
    await page.locator('[data-direction="inbound"]').getByText("Open today?").waitFor();
    const text = page.getByLabel("Message", { exact: true });
    await text.fill("Yes, until 9 pm");
    await expect.poll(() => page.getByTestId("reply-body-count").innerText()).toBe("1 segment · GSM-7 · 145 characters left");
    const before = Date.now();
    await page.getByRole("button", { name: "Send reply" }).click();
    await page.getByText("Reply sent: it goes out now.").waitFor();
    const after = Date.now();
    const [reply] = await outbound(a, { phone: person });
    expect(reply).toMatchObject({ from: "+14155550171", body: "Yes, until 9 pm" });
    const due = Date.parse(reply!.scheduledAt);
    expect(due).toBeGreaterThanOrEqual(before - 1000);
    expect(due).toBeLessThanOrEqual(after + 1000); // not scheduled a few seconds ahead
    await page.locator('[data-direction="outbound"]').locator(".chip-delivered").waitFor({ timeout: 45_000 });
    expect(unexpectedProblems(page.problems, 404)).toEqual([]); // 404: the number is not on the opt-out list
    await page.context().close();
  });

  it("Settings → Sending turns smart encoding on by default: the forms' box starts ticked; a campaign takes it", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/settings/sending");
    const setting = page.getByLabel("Smart encoding by default");
    expect(await setting.isChecked()).toBe(false);
    await setting.check();
    await page.getByRole("button", { name: "Save sending settings" }).click();
    await page.getByText("Sending settings saved.").waitFor();
    expect((await a.client.GET("/api/v1/account")).data!.settings.smartEncoding).toBe(true);

    // The message form's box follows the account; unticked, the message goes as written.
    await page.getByRole("link", { name: "Messages", exact: true }).click();
    await openForm(page, "New message");
    await fillAddresses(page);
    await page.getByLabel("Message", { exact: true }).fill("Don’t forget — 8 pm");
    const box = page.getByTestId("msg-body-count-smart").getByLabel("Use smart encoding");
    await expect.poll(() => box.isChecked()).toBe(true);
    await page.getByTestId("msg-body-count").getByText("(smart-encoded)").waitFor();
    await box.uncheck();
    await page.getByLabel("Reference (optional)").fill("as-written");
    await page.getByRole("button", { name: "Send now" }).click();
    await page.getByText("accepted: it is sent now.").waitFor();
    expect((await outbound(a, { reference: "as-written" }))[0]).toMatchObject({ sentBody: null, encoding: "UCS-2" });

    // A campaign: the same suggestion under its message, on by default now; the campaign keeps the choice.
    await page.getByRole("link", { name: "Campaigns" }).click();
    await openForm(page, "New campaign");
    await page.getByLabel("Name", { exact: true }).fill("Smart");
    await page.getByLabel("Message", { exact: true }).fill("It’s our birthday — 20% off today");
    await page.getByLabel("Pasted numbers").check();
    await page.getByLabel("Phone numbers").fill("+14155550181");
    await expect.poll(() => page.getByTestId("campaign-message-count-smart").getByLabel("Use smart encoding").isChecked()).toBe(true);
    await expect
      .poll(() => page.getByTestId("preview-segments").innerText())
      .toMatch(/^1 segment · GSM-7 · .*\(smart-encoded\) · 1 recipient$/);
    await page.getByRole("button", { name: "Send campaign" }).click();
    await page.getByRole("heading", { name: "Campaign “Smart”", level: 1 }).waitFor();
    await page.getByText("yes: look-alike characters are replaced").waitFor();
    const { data: campaigns } = await a.client.GET("/api/v1/campaigns");
    expect(campaigns!.data[0]).toMatchObject({ name: "Smart", smartEncoding: true });
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
