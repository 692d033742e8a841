// The dashboard's contacts, groups, CSV import and campaigns in a real browser (Debian's Chromium through
// playwright-core) against the server on 127.0.0.1 with a real database and an in-process worker.
import { describe, expect, it } from "vitest";
import { browserAvailable, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: contacts, groups and campaigns", { timeout: 60_000 }, () => {
  it("creates groups and contacts, edits one, moves one, and deletes a group whose contacts stay", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, key, "/dashboard/contacts");
    await page.getByRole("heading", { name: "Contacts & groups", level: 1 }).waitFor();

    for (const name of ["Friends", "Family"]) {
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Name", { exact: true }).press("Enter");
      await page.getByRole("button", { name: `Delete group ${name}` }).waitFor();
    }
    for (const [phone, firstName] of [
      ["+14155550111", "Ada"],
      ["+14155550112", "Grace"],
    ]) {
      await page.getByLabel("Phone", { exact: true }).fill(phone!);
      await page.getByLabel("First name", { exact: true }).fill(firstName!);
      await page.locator("#contact-group").selectOption({ label: "Friends" });
      await page.getByRole("button", { name: "Add contact" }).click();
      await page.getByText(`Added ${phone}.`).waitFor();
    }
    await page.locator('[data-group="Friends"]').getByText("2 contacts").waitFor();

    // Edit with the keyboard: Enter saves.
    await page.getByRole("button", { name: "Edit +14155550111" }).click();
    const firstName = page.getByRole("form", { name: "Edit +14155550111" }).getByLabel("First name");
    await firstName.fill("Ada L.");
    await firstName.press("Enter");
    await page.getByText("Saved +14155550111.").waitFor();
    await page.locator('[data-phone="+14155550111"]').getByText("Ada L.").waitFor();

    // Move Grace to Family.
    await page.getByLabel("Group of +14155550112").selectOption({ label: "Family" });
    await page.getByText("Moved +14155550112 to Family.").waitFor();
    await page.locator('[data-group="Family"]').getByText("1 contact").waitFor();

    // Delete Family: Grace stays, in no group.
    await page.getByRole("button", { name: "Delete group Family" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete group “Family”?" });
    await dialog.getByText("Its 1 contact stays: it is kept, in no group.").waitFor();
    await dialog.getByRole("button", { name: "Delete group" }).click();
    await page.getByText("Group “Family” deleted. Its 1 contact was kept and is now in no group.").waitFor();
    await expect.poll(() => page.getByLabel("Group of +14155550112").inputValue()).toBe("");
    const contacts = (await client.GET("/api/v1/contacts")).data!.data;
    expect(contacts.map((c) => [c.phone, c.firstName, c.groupId === null])).toEqual(
      expect.arrayContaining([
        ["+14155550111", "Ada L.", false],
        ["+14155550112", "Grace", true],
      ]),
    );
    await screenshot(page, "dashboard-contacts-groups");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("creates a group, imports a CSV with one bad row, sends a campaign and watches the progress bar reach completion", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, key, "/dashboard/contacts");

    await page.getByLabel("Name", { exact: true }).fill("Importers");
    await page.getByRole("button", { name: "Create group" }).click();
    await page.getByRole("button", { name: "Delete group Importers" }).waitFor();

    const csv = [
      "phone,firstName,group",
      "+14155550101,Ada,Importers",
      '"+1 415 555 0102","Grace, the admiral",importers', // quoted, with a comma; group name in any case
      "12345,Bad,Importers", // line 4: not a phone number
      "+14155550104,Linus,Importers",
      "",
    ].join("\r\n");
    await page.locator("#import-file").setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByText("4 rows read from contacts.csv (line 1 is the header).").waitFor();
    await page.getByRole("button", { name: "Import 4 rows" }).click();
    await page.getByText("Imported 3 contacts; 1 row failed and was not imported.").waitFor();
    const failures = page.getByRole("table", { name: "Rows not imported" }).getByRole("row");
    await expect.poll(() => failures.allInnerTexts()).toHaveLength(2); // header + one
    const cells = await failures.nth(1).getByRole("cell").allInnerTexts();
    expect(cells.slice(0, 2)).toEqual(["4", "phone"]);
    await page.locator('[data-group="Importers"]').getByText("3 contacts").waitFor();
    await screenshot(page, "dashboard-import-csv");

    // The campaign, with a live preview of the personalised text and its size.
    await page.getByRole("link", { name: "Campaigns" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Spring sale");
    await page.getByLabel("Message", { exact: true }).fill("Hi {{firstName}}, spring sale today!");
    await page.getByLabel("Group", { exact: true }).selectOption({ label: "Importers (3)" });
    const preview = page.getByTestId("preview-text");
    await expect.poll(() => preview.innerText()).toMatch(/^Hi (Ada|Grace, the admiral|Linus), spring sale today!$/);
    await expect.poll(() => page.getByTestId("preview-segments").innerText()).toMatch(/1 segment · GSM-7 · 3 recipients$/);
    await screenshot(page, "dashboard-campaign-preview");
    await page.getByRole("button", { name: "Send campaign" }).click();

    await page.getByRole("heading", { name: "Campaign “Spring sale”", level: 1 }).waitFor();
    const bar = page.getByRole("progressbar", { name: "Progress of Spring sale" });
    // Watch it: every value it shows is within 0..3, and it reaches 3 of 3 with the campaign completed.
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const now = `${await bar.getAttribute("aria-valuenow")}/${await bar.getAttribute("aria-valuemax")} ${await bar.getAttribute("data-status")}`;
          seen.add(now);
          return now;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe("3/3 completed");
    for (const state of seen) expect(state).toMatch(/^[0-3]\/[0-3] (sending|completed)$/);
    await page.locator('[data-stat="delivered"]').getByText("3").waitFor();
    await page.getByText("Completed: every message has its final status.").waitFor();
    await screenshot(page, "dashboard-campaign-completed");

    const campaigns = (await client.GET("/api/v1/campaigns")).data!.data;
    expect(campaigns).toHaveLength(1);
    expect(campaigns[0]!.status).toBe("completed");
    expect(campaigns[0]!.stats).toMatchObject({ total: 3, delivered: 3, failed: 0, undelivered: 0 });
    const bodies = (await client.GET("/api/v1/messages", { params: { query: { campaignId: campaigns[0]!.campaignId } } })).data!.data.map((m) => m.body).sort();
    expect(bodies).toEqual(["Hi Ada, spring sale today!", "Hi Grace, the admiral, spring sale today!", "Hi Linus, spring sale today!"]);

    // Its messages, filtered by campaign, from the campaign page.
    await page.getByRole("link", { name: "See its messages" }).click();
    await page.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    await expect.poll(() => page.getByRole("list", { name: "Messages" }).getByRole("listitem").count()).toBe(3);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("schedules a campaign to pasted numbers and cancels it", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    const page = await browser().newPage({ timezoneId: "Asia/Kolkata" });
    await signIn(page, baseUrl, key, "/dashboard/campaigns");
    await page.getByLabel("Name", { exact: true }).fill("Later");
    await page.getByLabel("Message", { exact: true }).fill("Hello {{firstName}}from us");
    await page.getByLabel("Pasted numbers").check();
    await page.getByLabel("Phone numbers").fill("+14155550121\n+1 415 555 0122, +14155550121");
    await page.getByText("Pasted numbers have no first name").waitFor();
    await expect.poll(() => page.getByTestId("preview-text").innerText()).toBe("Hello from us");
    await expect.poll(() => page.getByTestId("preview-segments").innerText()).toMatch(/2 recipients$/);
    await page.getByLabel("Schedule", { exact: true }).check();
    const year = new Date().getUTCFullYear() + 1;
    await page.getByLabel("Send at").fill(`${year}-01-15T10:00`);
    await page.getByText(`${year}-01-15T04:30:00.000Z`).waitFor(); // India is UTC+05:30
    await page.getByRole("button", { name: "Schedule campaign" }).click();

    await page.getByRole("heading", { name: "Campaign “Later”", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Cancel campaign" }).click();
    await page.getByRole("dialog", { name: "Cancel this campaign?" }).getByRole("button", { name: "Cancel campaign" }).click();
    await page.getByText("Campaign cancelled").waitFor();
    await page.locator(".status-line").getByText("cancelled", { exact: true }).waitFor();
    const [campaign] = (await client.GET("/api/v1/campaigns")).data!.data;
    expect(campaign).toMatchObject({ status: "cancelled", scheduledAt: `${year}-01-15T04:30:00.000Z` });
    await screenshot(page, "dashboard-campaign-cancelled");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
