// Billing in a real browser against a real server, worker and database (docs/BILLING.md): the operator imports
// a price list from a CSV file, puts an account on it (prepaid), credits it and sees its balance in the list of
// accounts; the account sees what it spent and a campaign's estimated cost. axe audits the new pages.
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openForm, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { inHours, useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: billing", { timeout: 120_000 }, () => {
  it("the operator imports a price list from a CSV file, prices and credits an account, and sees its balance", async () => {
    const { baseUrl, account, operator } = server();
    const op = await operator();
    const a = await account();
    const name = `csv-${Date.now() % 1e9}`;
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, op.key, "/dashboard/operator/price-lists");
    await page.getByRole("heading", { name: "Price lists", level: 1 }).waitFor();
    await openForm(page, "New price list");
    const form = page.getByRole("form", { name: "New price list" });
    await form.getByLabel("Name").fill(name);
    // A bad line is shown with its number and nothing can be saved.
    await form.getByLabel("Prices (CSV)").fill("prefix,price\n+1212,0.0075\nGB,1,2\n");
    await form.getByText("line 3: two columns expected").waitFor();
    expect(await form.getByRole("button", { name: "Save price list" }).isDisabled()).toBe(true);
    const found = await audit(page, "price list form with a problem");
    // The file, as a spreadsheet exports it: a header, prefixes, a country, the default.
    await form.getByLabel("Import a CSV file").setInputFiles({
      name: "prices.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("prefix,price\r\n+1212,0.0075\r\n+44,0.032\r\nCA,0.01\r\ndefault,0.05\r\n"),
    });
    await form.getByText("3 lines, default 0.05 USD").waitFor();
    await form.getByRole("button", { name: "Save price list" }).click();
    await page.getByText(`Price list “${name}” saved: 3 lines.`).waitFor();
    await page.locator(`tr[data-price-list="${name}"]`).getByText("0.05 USD").waitFor();
    const stored = await (await op.request("GET", `/api/v1/price-lists/${name}`)).json();
    expect(stored).toMatchObject({
      currency: "USD",
      entries: [
        { prefix: "+1212", pricePerSegment: 7500 },
        { prefix: "+44", pricePerSegment: 32000 },
        { country: "CA", pricePerSegment: 10000 },
      ],
      default: 50000,
    });
    // Edited again, it shows the same lines back.
    await page.getByRole("button", { name: `Edit price list ${name}` }).click();
    expect(
      await page
        .getByRole("form", { name: `Edit “${name}”` })
        .getByLabel("Prices (CSV)")
        .inputValue(),
    ).toBe("prefix,price\n+1212,0.0075\n+44,0.032\nCA,0.01\ndefault,0.05\n");
    found.push(...(await audit(page, "price lists")));
    await screenshot(page, "dashboard-price-lists");

    await page.goto(`${baseUrl}/dashboard/operator/accounts/${a.accountId}`);
    const billing = page.getByRole("region", { name: "Billing" });
    await billing.getByLabel("Price list").selectOption(name);
    await billing.getByLabel("Billing", { exact: true }).selectOption("prepaid");
    await billing.getByLabel("Credit limit (USD)").fill("0.5");
    await billing.getByRole("button", { name: "Save billing" }).click();
    await billing.getByText("Billing saved.").waitFor();
    await billing.getByLabel("Amount (USD)").fill("10");
    await billing.getByLabel("Note").fill("invoice 7");
    await billing.getByRole("button", { name: "Credit the account" }).click();
    await billing.getByText("Credited 10.00 USD: the balance is 10.00 USD.").waitFor();
    await billing.getByTestId("operator-balance").getByText("10.00 USD").waitFor();
    found.push(...(await audit(page, "operator account with billing")));
    const priced = (await (await op.request("GET", `/api/v1/accounts/${a.accountId}`)).json()) as { name: string };
    expect(priced).toMatchObject({ balance: 10_000_000, limits: { priceList: name, billing: "prepaid", creditLimit: 500_000 } });

    await page.goto(`${baseUrl}/dashboard/operator/accounts`);
    await page.locator(`tr[data-account="${priced.name}"]`).getByText("10.00 USD").waitFor();
    expect(found).toEqual([]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("an account sees what it spent and a campaign's estimated cost", async () => {
    const { baseUrl, account, operator } = server();
    const op = await operator();
    const a = await account();
    const list = `spend-${Date.now() % 1e9}`;
    expect(
      (await op.request("PUT", `/api/v1/price-lists/${list}`, { currency: "USD", entries: [{ country: "US", pricePerSegment: 7500 }] }))
        .status,
    ).toBe(201);
    expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: list })).status).toBe(200);
    const sent = await a.request("POST", "/api/v1/messages", { to: "+12125550131", from: "ACME", body: "priced" });
    expect(sent.status).toBe(201);
    const { messageId } = (await sent.json()) as { messageId: string };
    await waitUntil("the message delivered", async () => {
      const { data } = await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } });
      return data?.status === "delivered" || undefined;
    });
    const campaign = await a.request("POST", "/api/v1/campaigns", {
      name: "Next week",
      message: "Sale next week",
      type: "scheduled",
      scheduledAt: inHours(24),
      from: "ACME",
      recipients: ["+12125550132", "+12125550133", "+12125550134"],
    });
    expect(campaign.status, await campaign.clone().text()).toBe(201);
    const { campaignId } = (await campaign.json()) as { campaignId: string };

    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/settings/billing");
    await page.getByRole("heading", { name: "Settings → Billing", level: 1 }).waitFor();
    // Spend is counted by the status statement; the report reads what is not compacted yet too.
    await page.getByTestId("spend-total").getByText("0.0075 USD").waitFor();
    await page.goto(`${baseUrl}/dashboard/campaigns/${campaignId}`);
    await page.getByTestId("campaign-cost").getByText("0.0225 USD").waitFor();
    expect(await page.getByTestId("campaign-cost").innerText()).toBe("Estimated cost: 0.0225 USD");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
