// Carrier routing in a real browser against a real server, database and worker (docs/ROUTING.md): the operator
// makes a connector and sees its live state, edits the routing table as JSON (an unknown connector is refused
// with where, a good table saved with its new version) and as a form (a route added with a weighted pool, moved
// up, a fallback removed), asks what a message would do, and switches the connector off; an
// account makes a sender pool and deletes it. Each page passes axe's WCAG 2.1 A/AA checks.
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openSettings, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer } from "../helpers/server.js";
import { useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ connectorRefreshMs: 200 });
useTestWorker(server);
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: connectors, routing and sender pools", { timeout: 90_000 }, () => {
  it("an operator makes a connector, routes to it, explains a route and switches the connector off", async () => {
    const { baseUrl, operator, account } = server();
    const op = await operator();
    const aName = `Sender ${Date.now()}`;
    await account(aName);
    // The account the UK route is for, picked by its name.
    const routedName = `Routed ${Date.now()}`;
    const routed = await account(routedName);
    const found: string[] = [];
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, op.key, "/dashboard/operator/connectors");
    await page.getByRole("heading", { name: "Connectors", level: 1 }).waitFor();
    // The worker reports the `default` simulator bound.
    await page.locator('tr[data-connector="default"]').getByText("Bound").waitFor();

    await page.getByLabel("Connector name").fill("backup");
    await page.getByLabel("Type").selectOption("simulator");
    await page.getByRole("button", { name: "Create connector" }).click();
    await page.getByText("Connector “backup” made").waitFor();
    const backup = page.locator('tr[data-connector="backup"]');
    await backup.getByText("Bound").waitFor();
    await screenshot(page, "dashboard-connectors");
    found.push(...(await audit(page, "connectors")));
    const ids = (await (await op.request("GET", "/api/v1/connectors")).json()) as { data: { connectorId: string; name: string }[] };
    const idOf = (name: string) => ids.data.find((c) => c.name === name)!.connectorId;

    await page.getByRole("link", { name: "Routing" }).click();
    await page.getByRole("heading", { name: "Routing", level: 1 }).waitFor();
    await page.locator('tr[data-route="default"]').waitFor();
    // The JSON, one click from the form.
    await page.getByRole("button", { name: "Edit as JSON" }).click();
    const editor = page.getByLabel("Routes (JSON)");
    // An unknown connector: refused, with where.
    await editor.fill(JSON.stringify([{ name: "all", match: {}, connectors: [{ connectorId: "01937c1e-8f00-7a8b-9c0d-1e2f3a4b5c6d" }] }]));
    await page.getByRole("button", { name: "Save routing table" }).click();
    await page.getByTestId("route-errors").getByText("/body/routes/0/connectors/0/connectorId").waitFor();
    // The default's pool with the backup as its fallback.
    const version = Number(await page.locator("table[data-version]").getAttribute("data-version"));
    await editor.fill(
      JSON.stringify([{ name: "all", match: {}, connectors: [{ connectorId: idOf("default") }], fallback: [idOf("backup")] }]),
    );
    await page.getByRole("button", { name: "Save routing table" }).click();
    await page.getByText(`Routing table saved as version ${version + 1}`).waitFor();
    expect(await page.locator('tr[data-route="all"]').getByRole("cell").nth(3).innerText()).toBe("backup");

    // The form: a route for the UK added (before the catch-all "all", where it can match), its pool weighted,
    // a fallback removed, saved. Its country first written "UK": refused, saying the code is GB.
    await page.getByRole("button", { name: "Edit as a form" }).click();
    const form = page.getByTestId("routes-form");
    await form.locator('fieldset[data-route-form="all"]').waitFor();
    await form.getByRole("button", { name: "Add a route" }).click();
    const uk = form.locator("fieldset.route").nth(0);
    await uk.getByLabel("Name").fill("uk");
    await uk.getByLabel("Countries").fill("UK");
    await page.getByRole("button", { name: "Save routing table" }).click();
    await page.getByText("the United Kingdom is GB", { exact: false }).first().waitFor();
    await uk.getByLabel("Countries").fill("");
    await uk.getByLabel("Recipient prefixes").fill("+44");
    await uk.getByLabel("Connector 1", { exact: true }).selectOption({ label: "default" });
    await uk.getByLabel("Weight").fill("70");
    await uk.getByRole("button", { name: "Add a connector to the pool" }).click();
    await uk.getByLabel("Connector 2", { exact: true }).selectOption({ label: "backup" });
    await uk.getByLabel("Weight").nth(1).fill("30");
    await uk.getByRole("checkbox", { name: "transactional" }).check();
    await uk
      .getByRole("group", { name: "Accounts (none: every account)" })
      .getByRole("checkbox", { name: routedName, exact: true })
      .check();
    await form.getByRole("button", { name: "Remove fallback 1 of Route 2 “all”" }).click();
    await form.getByRole("group", { name: "Route 1 “uk”", exact: true }).waitFor();
    found.push(...(await audit(page, "routing form")));
    await page.getByRole("button", { name: "Save routing table" }).click();
    await page.getByText(`Routing table saved as version ${version + 2}`).waitFor();
    const saved = (await (await op.request("GET", "/api/v1/routes")).json()) as { routes: unknown[] };
    expect(saved.routes).toEqual([
      {
        name: "uk",
        match: { prefixes: ["+44"], accountIds: [routed.accountId], categories: ["transactional"] },
        connectors: [
          { connectorId: idOf("default"), weight: 70 },
          { connectorId: idOf("backup"), weight: 30 },
        ],
        fallback: [],
      },
      { name: "all", match: {}, connectors: [{ connectorId: idOf("default"), weight: 1 }], fallback: [] },
    ]);

    await page.getByLabel("To", { exact: true }).fill("+14155550123");
    await page.getByLabel("From", { exact: true }).fill("ACME");
    // The routes table names the account the UK route matches.
    await page.locator('tr[data-route="uk"]').getByText(`accountIds: ${routedName}`, { exact: false }).waitFor();
    // Explain picks the account by its name too.
    await page.getByLabel("Account", { exact: true }).selectOption({ label: aName });
    await page.getByRole("button", { name: "Explain route" }).click();
    const explained = page.getByTestId("explained");
    await explained.getByText("Route all").waitFor();
    expect(await explained.getByRole("listitem").allInnerTexts()).toEqual(["default: available"]);
    // A UK number of another account than the route's: the catch-all.
    await page.getByLabel("To", { exact: true }).fill("+447400123456");
    await page.getByRole("button", { name: "Explain route" }).click();
    await explained.getByText("Route all").waitFor();
    // Of the route's account, it takes the route the form made: its pool (the fallback was removed from "all").
    await page.getByLabel("Account", { exact: true }).selectOption({ label: routedName });
    await page.getByRole("button", { name: "Explain route" }).click();
    await explained.getByText("Route uk").waitFor();
    expect((await explained.getByRole("listitem").allInnerTexts()).sort()).toEqual(["backup: available", "default: available"]);
    await screenshot(page, "dashboard-routing");
    // A route after the catch-all can never match: saved, with a warning that says which and why.
    await page.getByRole("button", { name: "Edit as JSON" }).click();
    const current = JSON.parse(await page.getByLabel("Routes (JSON)").inputValue()) as object[];
    await page
      .getByLabel("Routes (JSON)")
      .fill(JSON.stringify([...current, { name: "late", match: { prefixes: ["+1"] }, connectors: [{ connectorId: idOf("default") }] }]));
    await page.getByRole("button", { name: "Save routing table" }).click();
    await page
      .locator("[data-warnings]")
      .getByText("Route 3 (late): never matches: the route all before it takes every message", { exact: false })
      .waitFor();
    await page.getByLabel("Routes (JSON)").fill(JSON.stringify(current));
    await page.getByRole("button", { name: "Save routing table" }).click();
    await page.locator("[data-warnings]").waitFor({ state: "detached" });
    found.push(...(await audit(page, "routing")));

    await page.getByRole("link", { name: "Connectors" }).click();
    await page.getByRole("button", { name: "Disable connector backup" }).click();
    await backup.getByText("Disabled").waitFor();
    await page.getByRole("button", { name: "Delete connector backup" }).click();
    await page.getByRole("dialog", { name: "Delete connector backup?" }).getByRole("button", { name: "Delete connector" }).click();
    // A route names it: refused, and it stays.
    await page.getByRole("dialog").getByText("The connector is named by the route(s) uk", { exact: false }).waitFor();
    expect(found).toEqual([]);
    // The refusals asked for (400 for UK, 422 route_invalid, 409 connector_in_use) are the only failed loads.
    expect(page.problems.filter((p) => !/status of (400|409|422)/.test(p))).toEqual([]);
    await page.context().close();
  });

  it("an account makes a sender pool from the numbers it holds, and deletes it", async () => {
    const { baseUrl, account } = server();
    const a = await account();
    await a.holds("+14155550181");
    await a.holds("+14155550182");
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key);
    await openSettings(page, "Sender pools");
    await page.getByRole("heading", { name: "Settings → Sender pools", level: 1 }).waitFor();
    await page.getByText("No sender pools yet.").waitFor();

    // A number it does not hold: refused, saying which.
    await page.getByLabel("Pool name").fill("long codes");
    await page.getByLabel("Senders").fill("+14155550181\n+14155550189");
    await page.getByRole("button", { name: "Create sender pool" }).click();
    await page.getByText("Sender pool not made").waitFor();
    await page.getByLabel("Senders").fill("+14155550181\n+14155550182");
    await page.getByLabel("Messages a second per sender (optional)").fill("1");
    await page.getByRole("button", { name: "Create sender pool" }).click();
    await page.getByText("Sender pool “long codes” made").waitFor();
    const row = page.locator('tr[data-pool="long codes"]');
    expect(await row.getByRole("cell").allInnerTexts()).toEqual(
      expect.arrayContaining(["+14155550181, +14155550182", "yes", "1 a second"]),
    );
    await screenshot(page, "dashboard-sender-pools");
    expect(await audit(page, "sender pools")).toEqual([]);

    await page.getByRole("button", { name: "Delete sender pool long codes" }).click();
    await page.getByRole("dialog", { name: "Delete sender pool long codes?" }).getByRole("button", { name: "Delete sender pool" }).click();
    await row.waitFor({ state: "detached" });
    expect(page.problems.filter((p) => !p.includes("422"))).toEqual([]);
    await page.context().close();
  });
});
