// The API reference at /docs in a real browser: pre-rendered with the dashboard's build, its operations are on
// the page before any script runs (read with JavaScript off, and with Redoc's bundle held back), and Redoc's
// bundle then takes the page over (the menu follows a click) without an error. How long the page takes to show
// its first operation, against Redoc rendering in the browser, is measured by bench/reference.ts.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserAvailable, useBrowser } from "../helpers/browser.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
/** An operation's heading (Redoc's h2, whose link names the operation's path in the page). */
const operation = (page: Page, summary: string) => page.locator("h2", { hasText: new RegExp(`^${summary}\\s*$`) }).first();
const browser = useBrowser();

describe.skipIf(!browserAvailable)("the API reference page", { timeout: 90_000 }, () => {
  it("shows every operation without running a script", async () => {
    const page = await browser().newPage({ javaScriptEnabled: false });
    const res = await page.goto(`${server().baseUrl}/docs`);
    expect(res!.headers()["content-encoding"]).toBe("gzip");
    for (const summary of ["Create a campaign", "Pause a campaign", "List conversations", "Send a message"])
      await operation(page, summary).waitFor();
    // With what they take: a parameter's description is on the page too.
    await page.getByText("Identifier of the campaign.").first().waitFor();
    await page.context().close();
  });

  it("is readable while Redoc's bundle is still on its way, which then takes it over", async () => {
    const page = await browser().newPage();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/docs/assets/redoc.standalone.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${server().baseUrl}/docs`, { waitUntil: "commit" });
    // The bundle is held: what shows is the HTML alone.
    await operation(page, "Create a campaign").waitFor();
    expect(await page.evaluate<boolean>("typeof window.Redoc === 'undefined'")).toBe(true);
    // The page has loaded before Redoc's bundle runs: it is fetched after the load event, in idle time.
    await page.waitForLoadState("load");
    release();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    // Hydrated: the menu is Redoc's again, a click leads to the operation.
    await page.getByRole("menuitem", { name: "Campaigns", exact: true }).click();
    await page.getByRole("menuitem", { name: "Pause a campaign", exact: true }).click();
    await page.waitForURL(/#tag\/Campaigns\/operation\/Campaigns_pause$/);
    // And the code samples Redoc draws once it runs: a curl of the operation.
    await page.getByText('curl -s -X POST "$API/api/v1/campaigns/7c6b5a49-3827-4615-a4b3-c2d1e0f9a8b7/pause"').first().waitFor();
    // A quiet console: no outside address refused by the page's policy (Redoc's logo is served empty).
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
