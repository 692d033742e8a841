// The Overview in a real browser against a real server, database and worker (docs/REPORTS.md): an account signs in
// to it, sees its totals and every chart with the numbers behind it (messages the simulator delivered, reported
// undelivered and rejected); the operator's Overview splits accounts and connectors, by name. Both pass axe's
// WCAG 2.1 A/AA checks, and the navigation is grouped (Settings has its own).
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openSettings, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

/** Three delivered, one undelivered (…0002), one rejected (…0001), settled. */
async function traffic(a: TestAccount): Promise<void> {
  const ids: string[] = [];
  for (const to of ["+14155550111", "+14155550112", "+447400123456", "+14155550002", "+14155550001"]) {
    const res = await a.request("POST", "/api/v1/messages", { to, from: "ACME", body: "hello" });
    ids.push(((await res.json()) as { messageId: string }).messageId);
  }
  await waitUntil("the messages settled", async () => {
    const statuses = await Promise.all(
      ids.map(async (id) => ((await (await a.request("GET", `/api/v1/messages/${id}`)).json()) as { status: string }).status),
    );
    return statuses.every((s) => ["delivered", "undelivered", "failed"].includes(s));
  });
}

/** A chart's table, row by row, as text. */
async function tableOf(page: Page, chart: string): Promise<string[][]> {
  const figure = page.locator(`figure[data-chart="${chart}"]`);
  await figure.locator("summary").click();
  return figure.locator("tbody tr").evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent ?? "")));
}

describe.skipIf(!browserAvailable)("dashboard: the Overview", { timeout: 90_000 }, () => {
  it("an account lands on its Overview: totals, charts with their tables, grouped navigation", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    await traffic(a);
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    const totals = page.getByTestId("overview-totals");
    await totals.getByText("Delivery rate").waitFor();
    const fact = async (label: string) =>
      totals
        .locator("div", { has: page.getByText(label, { exact: true }) })
        .locator("dd")
        .innerText();
    expect(await fact("Accepted")).toBe("5");
    expect(await fact("Delivered")).toBe("3");
    expect(await fact("Undelivered")).toBe("1");
    expect(await fact("Failed")).toBe("1");
    expect(await fact("Delivery rate")).toBe("60.0 %");
    for (const chart of ["volume", "outcomes", "errors", "countries", "time-to-delivered", "categories"])
      expect(await page.locator(`figure[data-chart="${chart}"] canvas[role="img"][aria-label]`).count(), chart).toBe(1);
    expect((await tableOf(page, "outcomes")).slice(0, 5)).toEqual([
      ["Accepted", "5"],
      ["Sent", "4"],
      ["Delivered", "3"],
      ["Undelivered", "1"],
      ["Failed", "1"],
    ]);
    expect(await tableOf(page, "errors")).toEqual(
      expect.arrayContaining([
        ["number_inactive", "1"],
        ["rejected", "1"],
      ]),
    );
    expect(await tableOf(page, "countries")).toEqual([
      ["US", "4", "0"],
      ["GB", "1", "0"],
    ]);
    await screenshot(page, "dashboard-overview");
    const found = await audit(page, "overview");

    // Six top-level links; Settings has its own navigation.
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts()).toEqual([
      "Overview",
      "Messages",
      "Inbox",
      "Contacts",
      "Campaigns",
      "Settings",
    ]);
    await openSettings(page, "Opt-outs");
    await page.getByRole("heading", { name: "Settings → Opt-outs", level: 1 }).waitFor();
    expect(
      await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Opt-outs" }).getAttribute("aria-current"),
    ).toBe("page");
    found.push(...(await audit(page, "settings")));
    expect(found).toEqual([]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("names a number's contact wherever the number is shown, and the inbox updates itself", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    await a.holds("+14155550180");
    expect((await a.request("POST", "/api/v1/contacts", { phone: "+14155550181", firstName: "Ada" })).status).toBe(201);
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/inbox");
    await page.getByText("No messages received yet.").waitFor();
    // A message arrives while the page is open: it appears without Refresh, under the contact's name.
    await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550181", to: "+14155550180", body: "hi there" });
    const row = page.getByRole("link", { name: "Conversation with +14155550181" });
    await row.getByText("Ada").waitFor();
    expect(await row.innerText()).toBe("Ada +14155550181");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages", exact: true }).click();
    await page.locator("li[data-message-id] .row-title", { hasText: "Ada" }).waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("the operator's Overview splits the accounts and the connectors by name", async () => {
    const { baseUrl, account, operator } = server();
    const a = await account("Overview Ltd");
    await traffic(a);
    const op = await operator();
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, op.key);
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    const figure = page.locator('figure[data-chart="accounts"]');
    await figure.locator("summary").click();
    // Named once the accounts are loaded (their ids until then).
    await figure.locator("tbody th", { hasText: "Overview Ltd" }).waitFor();
    const accounts = await figure
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent ?? "")));
    expect(accounts).toContainEqual(["Overview Ltd", "4", "3"]);
    const connectors = await tableOf(page, "connectors");
    expect(connectors[0]![0]).toBe("default");
    const found = await audit(page, "operator overview");
    expect(found).toEqual([]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
