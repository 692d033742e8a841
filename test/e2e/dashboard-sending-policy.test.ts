// The sending policy in a real browser against a real server and database: Settings → Sending (quiet hours,
// default time zone, throughput cap, with the server's 422 shown at its field), the category, priority and
// validity of the schedule form (a single message's defaults) and of the campaign form (a campaign's), and
// the message page showing validUntil; a campaign held by quiet hours shows how many and until when, and its
// message shows deferredUntil.
import { describe, expect, it } from "vitest";
import { browserAvailable, openForm, unexpectedProblems, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

// International networks allowed: an Inmarsat number below is one that no time zone map names.
const server = useTestServer({ ...fastWorkerConfig, allowInternationalNetworks: true });
useTestWorker(server);
const browser = useBrowser();

/** `HH:MM` in UTC, `minutes` from now. */
const utcClock = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);

describe.skipIf(!browserAvailable)("dashboard: sending policy", { timeout: 60_000 }, () => {
  it("saves quiet hours, a default time zone and a cap; shows an unknown zone at its field; turns quiet hours off", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/settings/sending");
    const zone = page.getByLabel("Default time zone");
    expect(await zone.inputValue()).toBe("UTC");
    await page.getByLabel("Hold marketing messages during quiet hours").check();
    await page.getByLabel("From").fill("21:30");
    await page.getByLabel("Until").fill("07:45");
    await zone.fill("Atlantis/Capital");
    await page.getByLabel("Throughput cap (segments a second)").fill("12");
    await page.getByRole("button", { name: "Save sending settings" }).click();
    await page.getByText("not a known IANA time zone", { exact: true }).waitFor();
    expect((await a.client.GET("/api/v1/account")).data!.settings.quietHours).toBeNull();

    await zone.fill("America/Denver");
    await page.getByRole("button", { name: "Save sending settings" }).click();
    await page.getByText("Sending settings saved.").waitFor();
    expect((await a.client.GET("/api/v1/account")).data!.settings).toMatchObject({
      quietHours: { start: "21:30", end: "07:45" },
      defaultTimeZone: "America/Denver",
      maxSegmentsPerSecond: 12,
    });
    await screenshot(page, "dashboard-sending");

    await page.reload();
    await page.getByLabel("Hold marketing messages during quiet hours").uncheck();
    await page.getByLabel("Throughput cap (segments a second)").fill("");
    await page.getByRole("button", { name: "Save sending settings" }).click();
    await page.getByText("Sending settings saved.").waitFor();
    expect((await a.client.GET("/api/v1/account")).data!.settings).toMatchObject({
      quietHours: null,
      defaultTimeZone: "America/Denver",
      maxSegmentsPerSecond: null,
    });
    expect(unexpectedProblems(page.problems, 422)).toEqual([]);
    await page.context().close();
  });

  it("sends with a category, priority and validity, and the message page shows them with validUntil", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/messages");
    await openForm(page, "New message");
    const form = page.getByRole("form", { name: "Send a message" });
    // A single message's defaults, each with what it means.
    expect(await form.getByLabel("Category").inputValue()).toBe("transactional");
    expect(await form.getByLabel("Priority").inputValue()).toBe("normal");
    await form.getByLabel("Priority").selectOption("high");
    await form.getByText("before every due normal and low message").waitFor();
    await form.getByLabel("Category").selectOption("marketing");
    await form.getByLabel("Valid for (minutes)").fill("5");
    await form.getByLabel("To").fill("+14155550123");
    await form.getByLabel("From").fill("ACME");
    await form.getByLabel("Message").fill("Flash sale");
    await page.getByRole("button", { name: "Send now" }).click();
    await page.getByRole("link", { name: "Open it" }).click();
    await page.getByTestId("valid-until").waitFor();
    const messages = (await a.client.GET("/api/v1/messages")).data!.data;
    expect(messages).toHaveLength(1);
    const m = messages[0]!;
    expect(m).toMatchObject({ category: "marketing", priority: "high", deferredUntil: null });
    if (m.direction !== "outbound") throw new Error("expected an outbound message");
    expect(Date.parse(m.validUntil!) - Date.parse(m.scheduledAt)).toBe(300_000);
    expect(await page.getByTestId("valid-until").locator("time").getAttribute("datetime")).toBe(m.validUntil);
    await page.getByText("marketing, high").waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("creates a campaign as marketing and low by default, or as chosen", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/campaigns");
    await openForm(page, "New campaign");
    const form = page.getByRole("form", { name: "New campaign" });
    expect(await form.getByLabel("Category").inputValue()).toBe("marketing");
    expect(await form.getByLabel("Priority").inputValue()).toBe("low");
    await form.getByLabel("Name").fill("Reminder");
    await form.getByLabel("Message").fill("Your visit is tomorrow");
    await form.getByLabel("Pasted numbers").check();
    await form.getByLabel("Phone numbers").fill("+14155550123\n+14155550124");
    await form.getByLabel("Category").selectOption("transactional");
    await form.getByLabel("Valid for (minutes)").fill("60");
    await form.getByRole("radio", { name: "Schedule" }).check();
    await page.getByRole("button", { name: "Schedule campaign" }).click();
    await page.getByRole("heading", { name: "Campaign “Reminder”" }).waitFor();
    const c = (await a.client.GET("/api/v1/campaigns")).data!.data[0]!;
    expect(c).toMatchObject({ category: "transactional", priority: "low", validityPeriod: 3600 });
    await page.getByText("3600 s after each message is due").waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("shows a campaign's messages held by quiet hours, and deferredUntil on the message's page", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    // A window around now in UTC, the zone of a number that tells none (Inmarsat) with the default zone UTC.
    await a.client.PATCH("/api/v1/account/settings", { body: { quietHours: { start: utcClock(-60), end: utcClock(60) } } });
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Night promo", message: "20% off", type: "instant", recipients: ["+870773111632"] },
    });
    const campaignId = created!.campaignId;
    const get = async () => (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId } } })).data!;
    await waitUntil("the campaign's message held by quiet hours", async () => (await get()).stats.deferred === 1);
    const campaign = await get();
    const message = (await a.client.GET("/api/v1/messages", { params: { query: { campaignId } } })).data!.data[0]!;
    if (message.direction !== "outbound") throw new Error("expected an outbound message");
    expect(message.deferredUntil).toBe(campaign.deferredUntil);

    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, `/dashboard/campaigns/${campaignId}`);
    await page.getByTestId("campaign-deferred").getByText("1 message is held by the account's quiet hours").waitFor();
    expect(await page.locator('[data-stat="deferred"]').textContent()).toBe("1");
    await screenshot(page, "dashboard-campaign-held");
    await page.goto(`${baseUrl}/dashboard/messages/${message.messageId}`);
    await page.getByTestId("deferred-until").waitFor();
    expect(await page.getByTestId("deferred-until").locator("time").getAttribute("datetime")).toBe(message.deferredUntil);
    expect(page.problems).toEqual([]);
    await a.client.POST("/api/v1/campaigns/{campaignId}/cancel", { params: { path: { campaignId } } });
    await page.context().close();
  });
});
