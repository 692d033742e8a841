// What the dashboard shows, held to what happened (issue 45's browser findings): series over time as lines of
// points with whole-number ticks (issue 25); a
// campaign's legend and bar add up to its total (opted out and skipped named); the Overview counts the opt-outs
// people sent apart from the messages not sent for one; audit actions read as words; the delivery log tells
// its messages apart; Settings → Sending does not deny the first-start account the numbers it may add.
import { describe, expect, it } from "vitest";
import { browserAvailable, signIn, useBrowser } from "../helpers/browser.js";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: what it shows adds up", { timeout: 90_000 }, () => {
  it("Overview: opt-outs received counted apart, days as points on lines; a campaign's legend adds up", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    await a.holds("+14155550300");
    // Two people text STOP; one of them is then in a campaign, with a premium-rate number beside them.
    for (const from of ["+14155550301", "+14155550302"])
      expect((await a.request("POST", "/api/v1/simulator/inbound", { from, to: "+14155550300", body: "STOP" })).status).toBe(202);
    await waitUntil(
      "both opted out",
      async () => ((await (await a.request("GET", "/api/v1/opt-outs")).json()) as { data: unknown[] }).data.length === 2,
    );
    const made = await a.request("POST", "/api/v1/campaigns", {
      name: "Legend",
      message: "hi",
      type: "instant",
      from: "ACME",
      recipients: ["+14155550301", "+14155550303", "+14155550304", "+449098765432"],
    });
    expect(made.status).toBe(201);
    const { campaignId } = (await made.json()) as { campaignId: string };
    await waitUntil("the campaign completed", async () => {
      const c = (await (await a.request("GET", `/api/v1/campaigns/${campaignId}`)).json()) as { status: string };
      return c.status === "completed";
    });

    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key);
    const totals = page.getByTestId("overview-totals");
    await totals.getByText("Opt-outs received").waitFor();
    const fact = async (label: string) =>
      totals
        .locator("div", { has: page.getByText(label, { exact: true }) })
        .locator("dd")
        .innerText();
    expect(await fact("Opt-outs received")).toBe("2");
    expect(await fact("Not sent: opted out")).toBe("0"); // the campaign made no message for the opted-out one
    // Over time, lines with their points (a lone day is a point, not one wide bar hiding the rate on its edge),
    // in the middle of the chart, never on an edge, over whole-number ticks of counts.
    const volume = page.locator('figure[data-chart="volume"] canvas');
    await volume.and(page.locator("[data-kinds]")).waitFor();
    expect(await volume.getAttribute("data-kinds")).toBe("line|line|line");
    expect((await volume.getAttribute("data-labels-at"))!.split("|").every((x) => Number(x) > 0 && Number(x) < 100)).toBe(true);
    const volumeTicks = (await volume.getAttribute("data-ticks"))!.split("|");
    expect(volumeTicks.length).toBeGreaterThan(1);
    for (const tick of volumeTicks) expect(tick).toMatch(/^\d+$/);
    // The rate (dashed) drawn first, under the counts.
    expect((await volume.getAttribute("data-drawn"))?.split("|")).toEqual(["Delivery rate (%)", "Delivered", "Sent"]);

    await page.goto(`${baseUrl}/dashboard/campaigns/${campaignId}`);
    const bar = page.getByRole("progressbar", { name: "Progress of Legend" });
    await bar.and(page.locator('[data-status="completed"]')).waitFor();
    const stat = (key: string) => page.locator(`[data-stat="${key}"]`).innerText();
    expect(await stat("total")).toBe("3");
    expect(await stat("optedOut")).toBe("1");
    expect(await stat("skipped")).toBe("1: 1 destination not allowed"); // the premium-rate number, with its reason
    expect(await page.getByText("Opted out (no message made)").count()).toBe(1);
    // The segments fill the bar: no grey stretch that reads as waiting.
    const widths = await bar
      .locator("span")
      .evaluateAll((spans) => spans.map((s) => parseFloat(s.getAttribute("style")?.match(/width:\s*([\d.]+)%/)?.[1] ?? "0")));
    expect(widths.reduce((n, w) => n + w, 0)).toBeCloseTo(100, 5);
    const chart = page.locator('figure[data-chart="campaign-progress"] canvas');
    await chart.waitFor();
    // A campaign of minutes: its hour is a point off the edges, not one hour-wide bar; its ticks are whole.
    expect(await chart.getAttribute("data-kinds")).toBe("line|line|line");
    expect((await chart.getAttribute("data-labels-at"))!.split("|").every((x) => Number(x) > 0 && Number(x) < 100)).toBe(true);
    for (const tick of (await chart.getAttribute("data-ticks"))!.split("|")) expect(tick).toMatch(/^\d+$/);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("audit actions in words; the delivery log tells messages apart; Settings → Sending on adding numbers", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    const receiver = await startReceiver("/dlr");
    const hook = await a.request("POST", "/api/v1/webhooks", { name: "log", url: receiver.url });
    expect(hook.status).toBe(201);
    const ids: string[] = [];
    for (const to of ["+14155550311", "+14155550312"]) {
      const res = await a.request("POST", "/api/v1/messages", { to, from: "ACME", body: "hi" });
      ids.push(((await res.json()) as { messageId: string }).messageId);
    }
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/audit-log");
    const created = page.locator('tr[data-action="Webhooks_create"] td[data-label="Action"]');
    await created.waitFor();
    expect(await created.innerText()).toBe("Register a webhook Webhooks_create");

    await page.goto(`${baseUrl}/dashboard/settings/webhooks`);
    await page.getByRole("button", { name: "Show delivery log" }).click();
    const links = page.getByRole("region", { name: "Delivery log of log" }).getByRole("link", { name: /^Message / });
    await waitUntil("both messages' receipts in the log", async () => (await links.count()) >= 2);
    const shown = new Map<string, string>();
    for (const link of await links.all())
      shown.set((await link.getAttribute("aria-label"))!.slice("Message ".length), await link.innerText());
    for (const id of ids) expect(shown.get(id)).toBe(`…${id.slice(-12)}`);
    expect(new Set(ids.map((id) => shown.get(id))).size).toBe(2);

    await page.goto(`${baseUrl}/dashboard/settings/sending`);
    const adds = page.locator("dt", { hasText: "Adds its own numbers" }).locator("xpath=following-sibling::dd[1]");
    expect(await adds.innerText()).toMatch(/^while this deployment sends through the simulator alone/);
    expect(page.problems).toEqual([]);
    await page.context().close();
    await receiver.close();
  });
});
