// The consent settings in a real browser against a real server and database: the automatic reply texts
// (Settings → Replies; an emptied box turns a reply off) and the events a webhook subscribes to, chosen when it
// is added and changed afterwards (PATCH).
import { describe, expect, it } from "vitest";
import { browserAvailable, openForm, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: consent settings", { timeout: 60_000 }, () => {
  it("saves the reply texts, an empty one as no reply, and shows what is stored after a reload", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/settings/replies");
    const optOut = page.getByLabel("Opt-out reply");
    // The defaults are shown until changed.
    expect(await optOut.inputValue()).toBe("You have been unsubscribed and will receive no more messages. Reply START to resubscribe.");

    await optOut.fill("ACME: unsubscribed. Reply START to come back.");
    await page.getByLabel("Help reply").fill("");
    await page.getByRole("button", { name: "Save replies" }).click();
    await page.getByText("Replies saved.").waitFor();
    const { data } = await a.client.GET("/api/v1/account");
    expect(data!.settings).toMatchObject({
      optOutReply: "ACME: unsubscribed. Reply START to come back.",
      optInReply: "You have been resubscribed. Reply STOP to unsubscribe.",
      helpReply: null,
    });

    await page.reload();
    await page.getByLabel("Opt-out reply").waitFor();
    expect(await page.getByLabel("Opt-out reply").inputValue()).toBe("ACME: unsubscribed. Reply START to come back.");
    expect(await page.getByLabel("Help reply").inputValue()).toBe("");
    await screenshot(page, "dashboard-replies");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("adds a webhook with the events chosen and changes them and its batching later", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/settings/webhooks");
    await openForm(page, "New webhook");
    await page.getByLabel("Name").fill("inbound receiver");
    await page.getByLabel("URL").fill("http://127.0.0.1:9/events");
    const form = page.getByRole("form", { name: "Add a webhook" });
    // The four receipts are ticked by default; take two off, add the received messages.
    for (const event of ["dlr.sent", "dlr.undelivered"]) await form.getByRole("checkbox", { name: new RegExp(event) }).uncheck();
    await form.getByRole("checkbox", { name: /message\.received/ }).check();
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.getByText("Webhook “inbound receiver” added").waitFor();
    const { data: created } = await a.client.GET("/api/v1/webhooks");
    expect(created!.data).toHaveLength(1);
    expect(created!.data[0]!.events).toEqual(["dlr.delivered", "dlr.failed", "message.received"]);

    const card = page.locator('[data-webhook="inbound receiver"]');
    await card.getByTestId("webhook-events").getByText("message.received").waitFor();
    await card.getByRole("button", { name: "Change events" }).click();
    const edit = card.getByRole("form", { name: "Events of inbound receiver" });
    await edit.getByRole("checkbox", { name: /dlr\.delivered/ }).uncheck();
    await edit.getByRole("checkbox", { name: /dlr\.failed/ }).uncheck();
    // With nothing ticked the API would refuse (at least one event): the page says so and does not send.
    await edit.getByRole("checkbox", { name: /message\.received/ }).uncheck();
    await edit.getByText("Choose at least one event.").waitFor();
    expect(await edit.getByRole("button", { name: "Save events of inbound receiver" }).isDisabled()).toBe(true);
    await edit.getByRole("checkbox", { name: /contact\.opted_out/ }).check();
    await edit.getByRole("checkbox", { name: /contact\.opted_in/ }).check();
    // Batching on: 200 events a POST, the oldest waiting at most half a second.
    expect(await card.getByTestId("webhook-batch").textContent()).toBe("Delivery: one POST per event");
    await edit.getByRole("checkbox", { name: /Post events in batches/ }).check();
    await edit.getByLabel("Events per batch, at most").fill("200");
    await edit.getByLabel("Longest wait of the oldest event (ms)").fill("500");
    await edit.getByRole("button", { name: "Save events of inbound receiver" }).click();
    await edit.getByText("Events saved.").waitFor();
    await card.getByTestId("webhook-events").getByText("contact.opted_in").waitFor();
    await card.getByText("Delivery: batches of up to 200 events, the oldest waiting at most 500 ms").waitFor();
    const { data: changed } = await a.client.GET("/api/v1/webhooks/{webhookId}", {
      params: { path: { webhookId: created!.data[0]!.webhookId } },
    });
    expect(changed!.events).toEqual(["contact.opted_out", "contact.opted_in"]);
    expect(changed!.batch).toEqual({ maxEvents: 200, maxDelayMs: 500 });
    await screenshot(page, "dashboard-webhook-events");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
