// An automated accessibility audit of every dashboard page (axe-core, WCAG 2.1 A and AA rules), in a real
// browser against a real server, with data on each page: a scheduled message with its timeline, a group with
// contacts, a campaign, a webhook with its delivery log, a list longer than a page (before and after its
// "Load more"), in light and in dark mode. Any violation fails the test and is printed with the elements it
// concerns. axe cannot judge everything (reading order, wording); the keyboard and phone-width tests in
// dashboard.test.ts cover some of the rest.
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openForm, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard accessibility", { timeout: 90_000 }, () => {
  // Every page twice (light and dark), a few seconds an audit on a busy machine: more than the describe's default.
  it("has no WCAG 2.1 A/AA violations that axe can find, on any page", { timeout: 180_000 }, async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const receiver = await startReceiver();
    try {
      const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "Regulars" } });
      for (const [phone, firstName] of [
        ["+14155550101", "Ada"],
        ["+14155550102", "Grace"],
      ] as const) {
        await a.client.POST("/api/v1/contacts", { body: { phone, firstName, groupId: group!.groupId } });
      }
      const { data: campaign } = await a.client.POST("/api/v1/campaigns", {
        body: {
          name: "Tomorrow",
          message: "Hi {{firstName}}!",
          type: "scheduled",
          groupId: group!.groupId,
          scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
        },
      });
      const { data: message } = await a.client.POST("/api/v1/scheduler/schedule", {
        body: {
          to: "+447911123456",
          from: "ACME",
          body: "Your table is ready",
          scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
        },
      });
      await a.client.POST("/api/v1/webhooks", { body: { name: "receiver", url: receiver.url } });
      // More messages than the list's first page (25), so the messages page shows "Load more messages".
      for (let i = 0; i < 25; i++) {
        const { response } = await a.client.POST("/api/v1/scheduler/schedule", {
          body: {
            to: `+4479111234${String(i).padStart(2, "0")}`,
            from: "ACME",
            body: `Reminder ${i}`,
            scheduledAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
          },
        });
        expect(response.status).toBe(201);
      }

      const page = await browser().newPage();
      const found: string[] = [];
      await page.goto(`${baseUrl}/dashboard/`);
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      found.push(...(await audit(page, "sign in")));

      await signIn(page, baseUrl, a.key, "/dashboard/messages");
      // Each page with its creation form opened ("New message"), so the forms are audited too.
      const pages: [string, string, string, string[]][] = [
        ["overview", "/dashboard/overview", "Overview", []],
        ["messages", "/dashboard/messages", "Messages", ["New message"]],
        ["message", `/dashboard/messages/${message!.messageId}`, "Message to +447911123456", []],
        ["contacts", "/dashboard/contacts", "Contacts & groups", []],
        ["campaigns", "/dashboard/campaigns", "Campaigns", ["New campaign"]],
        ["campaign", `/dashboard/campaigns/${campaign!.campaignId}`, "Campaign “Tomorrow”", []],
        ["webhooks", "/dashboard/settings/webhooks", "Settings → Webhooks", ["New webhook"]],
        ["templates", "/dashboard/settings/templates", "Settings → Templates", ["New template"]],
        ["users", "/dashboard/settings/users", "Settings → Users", ["Invite someone"]],
        ["your sign-in", "/dashboard/settings/your-sign-in", "Your sign-in", []],
      ];
      for (const [name, path, heading, forms] of pages) {
        await page.goto(baseUrl + path);
        await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
        await page.waitForLoadState("networkidle");
        if (name === "messages") await page.getByRole("button", { name: "Load more messages" }).waitFor();
        for (const form of forms) await openForm(page, form);
        found.push(...(await audit(page, name)));
      }
      // Dark mode (the system's preference): the same pages in their dark colours, contrast checked as in light.
      const dark = await browser().newPage({ colorScheme: "dark" });
      await dark.goto(`${baseUrl}/dashboard/`);
      await dark.getByRole("heading", { name: "Sign in" }).waitFor();
      // Dark indeed: the page's background is near black (the light one is #f6f7f9).
      expect(await dark.evaluate<string>("getComputedStyle(document.documentElement).backgroundColor")).toBe("rgb(15, 19, 24)");
      found.push(...(await audit(dark, "dark sign in")));
      await signIn(dark, baseUrl, a.key, "/dashboard/messages");
      for (const [name, path, heading, forms] of pages) {
        await dark.goto(baseUrl + path);
        await dark.getByRole("heading", { name: heading, level: 1 }).waitFor();
        await dark.waitForLoadState("networkidle");
        for (const form of forms) await openForm(dark, form);
        found.push(...(await audit(dark, `dark ${name}`)));
        if (name === "campaign" || name === "messages") await screenshot(dark, `dashboard-dark-${name}`);
      }
      await dark.context().close();
      // A paged list after "Load more": every row shown, focus on the first new one.
      await page.goto(`${baseUrl}/dashboard/messages`);
      await page.getByRole("button", { name: "Load more messages" }).press("Enter");
      await page.getByText(/^Showing all \d+ messages\.$/).waitFor();
      expect(await page.locator(":focus").getAttribute("data-message-id")).toMatch(/^[0-9a-f-]{36}$/);
      found.push(...(await audit(page, "messages after load more")));
      await page.goto(`${baseUrl}/dashboard/settings/webhooks`);
      await page.getByRole("heading", { name: "Settings → Webhooks", level: 1 }).waitFor();
      // The webhooks page in its busier states: a delivery in the log, the secret revealed, a dialog open.
      await page.getByRole("button", { name: "Send test receipt to receiver" }).click();
      await page.getByTestId("test-result").getByText(/./).first().waitFor();
      await page.getByRole("button", { name: "Reveal secret of receiver" }).click();
      await page.getByRole("button", { name: "Hide secret" }).waitFor();
      found.push(...(await audit(page, "webhooks with a delivery and the secret shown")));
      await page.getByRole("button", { name: "Delete webhook receiver" }).click();
      await page.getByRole("dialog").waitFor();
      found.push(...(await audit(page, "delete dialog")));
      expect(found).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  // Nine audits of a few seconds each on a busy machine: more time than the describe's default.
  it("has none on the two-way messaging pages either, with their data, problems and forms shown", { timeout: 180_000 }, async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const person = "+14155550502";
    expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550501", name: "Support" })).status).toBe(201);
    expect((await a.request("POST", "/api/v1/simulator/inbound", { from: person, to: "+14155550501", body: "Hi there" })).status).toBe(202);
    const { data: inbound } = await a.client.GET("/api/v1/messages", { params: { query: { direction: "inbound" } } });
    expect((await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550503", to: "+14155550501", body: "STOP" })).status).toBe(
      202,
    );
    await a.client.POST("/api/v1/webhooks", { body: { name: "events", url: "http://127.0.0.1:9/events", events: ["message.received"] } });

    const page = await browser().newPage();
    const found: string[] = [];
    await signIn(page, baseUrl, a.key, "/dashboard/inbox");
    // With their creation forms opened, so the forms are audited too.
    const pages: [string, string, string, string[]][] = [
      ["inbox", "/dashboard/inbox", "Inbox", []],
      ["conversation", `/dashboard/conversations/${encodeURIComponent(person)}`, `Conversation with ${person}`, []],
      ["inbound message", `/dashboard/messages/${inbound!.data[0]!.messageId}`, `Message from ${person}`, []],
      ["numbers", "/dashboard/settings/numbers", "Settings → Numbers", ["Add a number"]],
      ["opt-outs", "/dashboard/settings/opt-outs", "Settings → Opt-outs", ["Add a number", "Import a file"]],
      ["replies", "/dashboard/settings/replies", "Settings → Replies", []],
      ["sending", "/dashboard/settings/sending", "Settings → Sending", []],
      ["billing", "/dashboard/settings/billing", "Settings → Billing", []],
    ];
    for (const [name, path, heading, forms] of pages) {
      await page.goto(baseUrl + path);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState("networkidle");
      for (const form of forms) await openForm(page, form);
      found.push(...(await audit(page, name)));
    }
    // The problems these pages show: the closed reply box of an opted-out number, a taken number.
    await page.goto(`${baseUrl}/dashboard/conversations/${encodeURIComponent("+14155550503")}`);
    await page.getByTestId("reply-closed").waitFor();
    found.push(...(await audit(page, "conversation with an opted-out number")));
    await page.goto(`${baseUrl}/dashboard/settings/numbers`);
    await openForm(page, "Add a number");
    await page.getByLabel("Phone number").fill("+14155550501");
    await page.getByRole("button", { name: "Add number" }).click();
    await page.getByTestId("number-taken").waitFor();
    found.push(...(await audit(page, "numbers with a taken number")));
    await page.goto(`${baseUrl}/dashboard/settings/webhooks`);
    await page.getByRole("button", { name: "Change events" }).click();
    await page.getByRole("form", { name: "Events of events" }).waitFor();
    found.push(...(await audit(page, "webhook events being changed")));
    expect(found).toEqual([]);
  });
});
