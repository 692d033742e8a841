// The dashboard's contacts, groups, CSV import and campaigns in a real browser (Debian's Chromium through
// playwright-core) against the server on 127.0.0.1 with a real database and an in-process worker.
import { describe, expect, it } from "vitest";
import { browserAvailable, openForm, screenshot, signIn, useBrowser } from "../helpers/browser.js";
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
      "+14155550101,Ada again,Importers", // line 6: the number of line 2
      "",
    ].join("\r\n");
    await page.locator("#import-file").setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByText("5 rows read from contacts.csv (line 1 is the header).").waitFor();
    // The lines of the file, everywhere: the first row under the header is line 2.
    await page.getByRole("table", { name: "Columns of the file" }).getByRole("columnheader", { name: "Line 2" }).waitFor();
    await page.getByRole("button", { name: "Import 5 rows" }).click();
    await page.getByText("Imported 3 contacts; 2 rows failed and were not imported.").waitFor();
    const failures = page.getByRole("table", { name: "Rows not imported" }).getByRole("row");
    await expect.poll(() => failures.allInnerTexts()).toHaveLength(3); // header + two
    const cells = await failures.nth(1).getByRole("cell").allInnerTexts();
    expect(cells.slice(0, 2)).toEqual(["4", "phone"]);
    const duplicate = await failures.nth(2).getByRole("cell").allInnerTexts();
    expect(duplicate).toEqual(["6", "phone", "+14155550101 is already in line 2 of the file."]);
    await page.locator('[data-group="Importers"]').getByText("3 contacts").waitFor();
    await screenshot(page, "dashboard-import-csv");

    // The campaign, with a live preview of the personalised text and its size.
    await page.getByRole("link", { name: "Campaigns" }).click();
    await openForm(page, "New campaign");
    await page.getByLabel("Name", { exact: true }).fill("Spring sale");
    await page.getByLabel("Message", { exact: true }).fill("Hi {{firstName}}, spring sale today!");
    await page.getByLabel("Group", { exact: true }).selectOption({ label: "Importers (3)" });
    const preview = page.getByTestId("preview-text");
    await expect.poll(() => preview.innerText()).toMatch(/^Hi (Ada|Grace, the admiral|Linus), spring sale today!$/);
    await expect
      .poll(() => page.getByTestId("preview-segments").innerText())
      .toMatch(/^1 segment · GSM-7 · \d+ characters left · 3 recipients$/);
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
    // Delivered messages were sent: no "0 sent, 3 delivered"; the ones still awaiting a receipt are "in flight".
    expect(await bar.getAttribute("aria-valuetext")).toBe("3 of 3 finished: 3 delivered, 0 failed, 0 undelivered");
    await screenshot(page, "dashboard-campaign-completed");

    const campaigns = (await client.GET("/api/v1/campaigns")).data!.data;
    expect(campaigns).toHaveLength(1);
    expect(campaigns[0]!.status).toBe("completed");
    expect(campaigns[0]!.stats).toMatchObject({ total: 3, delivered: 3, failed: 0, undelivered: 0 });
    const bodies = (await client.GET("/api/v1/messages", { params: { query: { campaignId: campaigns[0]!.campaignId } } }))
      .data!.data.map((m) => m.body)
      .sort();
    expect(bodies).toEqual(["Hi Ada, spring sale today!", "Hi Grace, the admiral, spring sale today!", "Hi Linus, spring sale today!"]);

    // Its messages, filtered by campaign, from the campaign page.
    await page.getByRole("link", { name: "See its messages" }).click();
    await page.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    await expect.poll(() => page.getByRole("list", { name: "Messages" }).getByRole("listitem").count()).toBe(3);
    // The list says it as the campaign's page does.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Campaigns", exact: true }).click();
    await page
      .locator('li[data-campaign="Spring sale"]')
      .getByText("3 of 3 finished: 3 delivered, 0 failed, 0 undelivered", { exact: true })
      .waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("pages through more campaigns than one page, with the keyboard, and reaches the oldest", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    // 60 campaigns, one request each (so each has its own creation time), oldest first: "Batch 01" is the last
    // row of the newest-first list, on its second page.
    const names = Array.from({ length: 60 }, (_, i) => `Batch ${String(i + 1).padStart(2, "0")}`);
    const scheduledAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    for (const name of names) {
      const { response } = await client.POST("/api/v1/campaigns", {
        body: { name, message: "Hello", type: "scheduled", recipients: ["+14155550100"], scheduledAt },
      });
      expect(response.status).toBe(201);
    }
    const page = await browser().newPage();
    await signIn(page, baseUrl, key, "/dashboard/campaigns");
    const rows = page.getByRole("list", { name: "Campaigns" }).getByRole("listitem");
    await page.getByText("Showing the newest 50 campaigns.").waitFor();
    expect(await rows.count()).toBe(50);
    expect(await page.getByRole("link", { name: "Batch 01" }).count()).toBe(0);

    // From the last row's link, Tab reaches "Load more campaigns"; Enter loads the rest and moves focus to the
    // first new row, where Tab goes on to its link.
    await page.getByRole("link", { name: "Batch 11" }).focus();
    await page.keyboard.press("Tab");
    const loadMore = page.getByRole("button", { name: "Load more campaigns" });
    const focused = page.locator(":focus");
    expect(await focused.textContent()).toBe("Load more campaigns");
    await screenshot(page, "dashboard-campaigns-load-more", { fullPage: false });
    await page.keyboard.press("Enter");
    await page.getByText("Showing all 60 campaigns.").waitFor();
    expect(await loadMore.count()).toBe(0);
    expect(await focused.getAttribute("data-campaign")).toBe("Batch 10");
    await page.keyboard.press("Tab");
    expect(await focused.getAttribute("href")).toMatch(/^\/dashboard\/campaigns\/[0-9a-f-]{36}$/);
    expect(await focused.textContent()).toBe("Batch 10");

    // Every campaign once, newest first.
    expect(await rows.locator(".row-title").allInnerTexts()).toEqual([...names].reverse());
    await page.getByRole("link", { name: "Batch 01" }).scrollIntoViewIfNeeded();
    await screenshot(page, "dashboard-campaigns-all-loaded", { fullPage: false });
    await page.getByRole("link", { name: "Batch 01" }).click();
    await page.getByRole("heading", { name: "Campaign “Batch 01”", level: 1 }).waitFor();

    // The same control on the messages (25 a page): three pages, and Refresh keeps every row loaded.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages" }).click();
    const messages = page.getByRole("list", { name: "Messages" }).getByRole("listitem");
    await page.getByText("Showing the newest 25 messages.").waitFor();
    await page.getByRole("button", { name: "Load more messages" }).click();
    await page.getByText("Showing the newest 50 messages.").waitFor();
    await page.getByRole("button", { name: "Load more messages" }).click();
    await page.getByText("Showing all 60 messages.").waitFor();
    const ids = await messages.evaluateAll((items) => items.map((li) => li.getAttribute("data-message-id")));
    expect(new Set(ids).size).toBe(60);
    // The reload asks for as many rows as are shown, in one request of 60.
    const reloaded = page.waitForResponse(
      (r) => new URL(r.url()).pathname === "/api/v1/messages" && new URL(r.url()).searchParams.get("limit") === "60",
    );
    await page.getByRole("button", { name: "Refresh" }).click();
    expect((await reloaded).status()).toBe(200);
    await expect.poll(() => page.getByRole("button", { name: "Refresh" }).isEnabled()).toBe(true);
    await page.getByText("Showing all 60 messages.").waitFor();
    expect(await messages.evaluateAll((items) => items.map((li) => li.getAttribute("data-message-id")))).toEqual(ids);
    // Its campaign filter offers the newest 50 campaigns ("All messages" is the first option), then every one.
    const options = page.locator("#filter-campaign option");
    expect(await options.count()).toBe(51);
    await page.getByRole("button", { name: "Load more campaigns" }).click();
    await expect.poll(() => options.count()).toBe(61);
    expect(await page.locator(":focus").getAttribute("id")).toBe("filter-campaign");
    expect(await page.getByRole("button", { name: "Load more campaigns" }).count()).toBe(0);
    await page.locator("#filter-campaign").selectOption({ label: "Batch 01" });
    await expect.poll(() => messages.count()).toBe(1);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("schedules a campaign to pasted numbers and cancels it", async () => {
    const { baseUrl, account } = server();
    const { key, client } = await account();
    const page = await browser().newPage({ timezoneId: "Asia/Kolkata" });
    await signIn(page, baseUrl, key, "/dashboard/campaigns");
    await openForm(page, "New campaign");
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
