// Searching in the dashboard, in a real browser against a real server and database. Messages: text in any case,
// a number's prefix and a date range narrow the list, the address keeps the search (a reload shows the same),
// a scheduled message's row says when it sends. Contacts: a contact added with a last name, tags and custom
// fields shows them; a search by name or number and by tag finds it; an opted-out contact is marked. A
// campaign personalised with a last name and a custom field, previewed with a fallback. A template made in
// Settings → Templates, used by a message with its placeholders filled, and not deleted while that message
// waits. A campaign paused, resumed and duplicated as a draft that starts from its page. A contact put in several
// groups from its edit form; a CSV import whose unknown columns are named, one mapped to a custom field. Long
// ids short in lists, copied whole. axe audits the pages.
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openForm, screenshot, signIn, unexpectedProblems, useBrowser } from "../helpers/browser.js";
import { inHours, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const browser = useBrowser();

describe.skipIf(!browserAvailable)("dashboard: daily use", { timeout: 60_000 }, () => {
  it("narrows the list by text, number and date, and keeps the search in the address", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    for (const [to, body] of [
      ["+447400123401", "Your ORDER 1041 has shipped"],
      ["+14155550101", "order 1042: out for delivery"],
      ["+447400123402", "Hello from the shop"],
    ] as const) {
      const res = await a.request("POST", "/api/v1/scheduler/schedule", { to, from: "ACME", body, scheduledAt: inHours(24) });
      expect(res.status).toBe(201);
    }
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/messages");
    const rows = page.getByRole("list", { name: "Messages" }).getByRole("listitem");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(3);
    await expect.poll(() => rows.first().textContent(), { timeout: 15_000 }).toContain("Sends");

    await page.getByLabel("Text").fill("order");
    await page.getByLabel("Text").press("Enter");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    expect(new URL(page.url()).searchParams.get("q")).toBe("order");

    await page.getByLabel("Number starts with").fill("+44");
    await page.getByLabel("Number starts with").press("Enter");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    await rows.getByText("Your ORDER 1041 has shipped").waitFor();

    // Created from tomorrow: nothing yet.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, "0")}-${String(tomorrow.getDate()).padStart(2, "0")}`;
    await page.getByLabel("Created from").fill(day);
    await page.getByText("No messages match these filters.").waitFor();

    // The address holds the search: a reload shows the same.
    await page.getByLabel("Created from").fill("");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    await page.reload();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    expect(await page.getByLabel("Text").inputValue()).toBe("order");
    expect(await audit(page, "messages searched")).toEqual([]);
    await screenshot(page, "dashboard-message-search");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("adds a contact with tags and custom fields, and finds contacts by name, number and tag", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    for (const body of [
      { phone: "+14155550401", firstName: "Ada", lastName: "Lovelace", tags: ["vip"] },
      { phone: "+14155550402", firstName: "Adam", lastName: "Smith", tags: ["newsletter"] },
      { phone: "+447400123404", firstName: "Grace", lastName: "Hopper" },
    ]) {
      expect((await a.request("POST", "/api/v1/contacts", body)).status).toBe(201);
    }
    expect((await a.request("PUT", "/api/v1/opt-outs/%2B447400123404")).status).toBeLessThan(300);
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/contacts");
    const rows = page.getByRole("list", { name: "Contacts" }).getByRole("listitem");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(3);
    await page.locator('li[data-phone="+447400123404"]').getByText("opted out").waitFor();

    // Added through the form, with its details.
    const form = page.getByRole("form", { name: "Add a contact" });
    await form.getByLabel("Phone").fill("+14155550405");
    await form.getByLabel("First name").fill("Katherine");
    await form.getByLabel("Last name").fill("Johnson");
    await form.getByLabel("Tags").fill("vip, nasa");
    // A line without '=' is refused, named, instead of stored as an empty value.
    await form.getByLabel("Custom fields").fill("plan=gold\ncity");
    await form.getByRole("button", { name: "Add contact" }).click();
    await form.locator("#contact-fields-error").getByText("Line 2 has no '=': write key=value").waitFor();
    expect(await form.getByLabel("Custom fields").getAttribute("aria-invalid")).toBe("true");
    expect((await a.client.GET("/api/v1/contacts", { params: { query: { phones: ["+14155550405"] } } })).data!.data).toEqual([]);
    await form.getByLabel("Custom fields").fill("plan=gold\ncity=Hampton");
    await expect.poll(() => form.locator("#contact-fields-error").count()).toBe(0);
    await form.getByRole("button", { name: "Add contact" }).click();
    const added = page.locator('li[data-phone="+14155550405"]');
    await added.getByText("Katherine Johnson").waitFor();
    await added.getByText("nasa", { exact: true }).waitFor();
    // Stored as JSON (jsonb): keys come back in its order, not as typed.
    await added.getByText("city: Hampton · plan: gold").waitFor();
    // One notice a page: the outcome of the last action goes when the next one fails.
    await page.getByRole("status").filter({ hasText: "Added +14155550405." }).waitFor();
    await form.getByLabel("Phone").fill("+14155550405");
    await form.getByRole("button", { name: "Add contact" }).click();
    await form.getByRole("alert").getByText("Contact not added", { exact: false }).waitFor();
    await expect.poll(() => page.locator(".notice").count()).toBe(0);

    await page.getByLabel("Name or number").fill("love");
    await page.getByLabel("Name or number").press("Enter");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    await page.getByLabel("Name or number").fill("555 04");
    await page.getByLabel("Name or number").press("Enter");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(3);
    await page.getByLabel("Name or number").fill("");
    await page.getByLabel("Name or number").press("Enter");
    await page.getByLabel("Tag", { exact: true }).fill("vip");
    await page.getByLabel("Tag", { exact: true }).press("Enter");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    expect(new URL(page.url()).searchParams.get("tag")).toBe("vip");
    expect(await audit(page, "contacts searched")).toEqual([]);
    await screenshot(page, "dashboard-contact-search");
    expect(unexpectedProblems(page.problems, 409)).toEqual([]);
    await page.context().close();
  });

  it("puts a contact in several groups from its edit form, and shows them on its row", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const { data: vip } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "VIP" } });
    const { data: news } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "Newsletter" } });
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550411", firstName: "Ada", groupId: vip!.groupId } });
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/contacts");
    const row = page.locator('li[data-phone="+14155550411"]');
    await row.getByRole("button", { name: "Edit +14155550411" }).click();
    const form = page.getByRole("form", { name: "Edit +14155550411" });
    const groups = form.getByRole("group", { name: "Groups" });
    expect(await groups.getByRole("checkbox", { name: "VIP" }).isChecked()).toBe(true);
    await groups.getByRole("checkbox", { name: "Newsletter" }).check();
    expect(await audit(page, "contact edit form with its groups")).toEqual([]);
    await form.getByRole("button", { name: "Save" }).click();
    await page.getByTestId("contact-groups").getByText("Groups: VIP, Newsletter").waitFor();
    const { data: stored } = await a.client.GET("/api/v1/contacts", { params: { query: { groupId: news!.groupId } } });
    expect(stored!.data.map((c) => [c.phone, c.groupId, c.groupIds])).toEqual([
      ["+14155550411", vip!.groupId, [vip!.groupId, news!.groupId]],
    ]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("imports a CSV whose unknown columns are named and ignored, one of them mapped to a custom field", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/contacts");
    const csv = ["Phone,First name,Surname,Tags,Company,Notes", '+14155550421,Ada,Lovelace,"vip;math",Analytical,likes engines', ""].join(
      "\n",
    );
    await page.locator("#import-file").setInputFiles({ name: "crm.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByText("Columns “Company”, “Notes” are not a contact field: ignored unless you choose what they become below.").waitFor();
    const mapping = page.getByRole("table", { name: "Columns of the file" });
    expect(await mapping.getByLabel("Import column “Surname” as").inputValue()).toBe("lastName");
    await mapping.getByLabel("Import column “Company” as").selectOption({ label: "Custom field “company”" });
    expect(await audit(page, "import with its column mapping")).toEqual([]);
    await page.getByRole("button", { name: "Import 1 row" }).click();
    await page.getByText("Imported 1 contact.").waitFor();
    const { data } = await a.client.GET("/api/v1/contacts", { params: { query: { phones: ["+14155550421"] } } });
    expect(data!.data[0]).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      tags: ["vip", "math"],
      customFields: { company: "Analytical" },
    });
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("personalises a campaign with a contact's last name and custom field, with a fallback, in the preview and the campaign", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "Gold" } });
    const contact = {
      phone: "+14155550501",
      firstName: "Ada",
      lastName: "Lovelace",
      customFields: { plan: "gold" },
      groupId: group!.groupId,
    };
    expect((await a.client.POST("/api/v1/contacts", { body: contact })).response.status).toBe(201);
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/campaigns");
    await openForm(page, "New campaign");
    await page.getByLabel("Name", { exact: true }).fill("Renewals");
    await page.getByLabel("Message", { exact: true }).fill("Dear {{firstName}} {{lastName}}, your {{custom.plan}} plan, {{custom.city}}");
    await page.getByLabel("Group", { exact: true }).selectOption({ label: "Gold (1)" });
    const preview = page.getByTestId("preview-text");
    await expect.poll(() => preview.innerText(), { timeout: 15_000 }).toContain("would be left out");
    await page.getByLabel("Fallbacks (optional)").fill("custom.city=your city");
    await expect.poll(() => preview.innerText(), { timeout: 15_000 }).toBe("Dear Ada Lovelace, your gold plan, your city");
    expect(await audit(page, "campaign form with fallbacks")).toEqual([]);
    // With a template chosen, the preview is the template's text for the contact, not the form's own message.
    expect((await a.request("POST", "/api/v1/templates", { name: "Plan", body: "{{custom.plan}} renews, {{firstName}}" })).status).toBe(
      201,
    );
    await page.reload();
    await openForm(page, "New campaign");
    await page.getByLabel("Group", { exact: true }).selectOption({ label: "Gold (1)" });
    await page.getByLabel("Use a template").selectOption({ label: "Plan" });
    await expect.poll(() => preview.innerText(), { timeout: 15_000 }).toBe("gold renews, Ada");
    await page.getByLabel("Use a template").selectOption({ index: 0 });
    await page.getByLabel("Name", { exact: true }).fill("Renewals");
    await page.getByLabel("Message", { exact: true }).fill("Dear {{firstName}} {{lastName}}, your {{custom.plan}} plan, {{custom.city}}");
    await page.getByLabel("Fallbacks (optional)").fill("custom.city=your city");
    await expect.poll(() => preview.innerText(), { timeout: 15_000 }).toBe("Dear Ada Lovelace, your gold plan, your city");
    await page.getByRole("button", { name: "Send campaign" }).click();
    await page.getByRole("heading", { name: "Campaign “Renewals”", level: 1 }).waitFor();
    // Sent now: nothing to reschedule.
    expect(await page.getByRole("form", { name: "Reschedule" }).count()).toBe(0);
    const campaigns = (await a.client.GET("/api/v1/campaigns")).data!.data;
    expect(campaigns[0]).toMatchObject({ name: "Renewals", fallbacks: { "custom.city": "your city" }, stats: { total: 1, skipped: 0 } });
    // A recipient skipped for a missing value is said to be, on the campaign's page and in the list.
    expect(
      (await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550502", firstName: "Bob", groupId: group!.groupId } })).response
        .status,
    ).toBe(201);
    const { data: skipping } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Plans", message: "Your {{custom.plan}} plan", type: "instant", groupId: group!.groupId },
    });
    expect(skipping!.stats).toMatchObject({ skipped: 1, skippedBy: { missing_value: 1 } });
    await page.goto(`${baseUrl}/dashboard/campaigns/${skipping!.campaignId}`);
    await page.locator('[data-stat="skipped"]').getByText("1: 1 missing a value for a placeholder").waitFor();
    await page.goto(`${baseUrl}/dashboard/campaigns`);
    await page.getByText("1 skipped (1 missing a value for a placeholder)", { exact: false }).first().waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("makes a template, sends a message from it with its placeholders filled, and refuses to delete it while that message waits", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/settings/templates");
    await page.getByRole("heading", { name: "Settings → Templates", level: 1 }).waitFor();
    await openForm(page, "New template");
    const form = page.getByRole("form", { name: "New template" });
    await form.getByLabel("Name").fill("Reminder");
    // An unclosed placeholder is refused and named, not saved as a text with "No placeholders".
    await form.getByLabel("Text").fill("Hi {{firstName, see you soon.");
    await form.getByRole("button", { name: "Create template" }).click();
    await form.locator("#new-template-body-error").getByText("“{{firstName” is not closed: write {{firstName}}").waitFor();
    expect((await a.client.GET("/api/v1/templates")).data!.data).toEqual([]);
    // One the API took (it keeps the braces as text) says so in the list, beside its placeholders.
    expect((await a.request("POST", "/api/v1/templates", { name: "Stray", body: "See you soon}}" })).status).toBe(201);
    await form.getByLabel("Text").fill("See you on {{date}} at {{time}}.");
    await form.getByRole("button", { name: "Create template" }).click();
    await page.locator('li[data-template="Reminder"]').getByText("Placeholders: date, time").waitFor();
    await page.locator('li[data-template="Stray"]').getByText("“See you soon}}” closes no placeholder: open it with {{").waitFor();
    expect(await audit(page, "templates")).toEqual([]);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages", exact: true }).click();
    await openForm(page, "New message");
    await page.getByLabel("To", { exact: true }).fill("+14155550701");
    await page.getByLabel("From", { exact: true }).fill("ACME");
    await page.getByLabel("Use a template").selectOption({ label: "Reminder" });
    await page.getByLabel("{{date}}").fill("Monday");
    await page.getByLabel("{{time}}").fill("10:00");
    await expect.poll(() => page.getByTestId("msg-template-text").innerText(), { timeout: 15_000 }).toBe("See you on Monday at 10:00.");
    expect(await audit(page, "send form with a template")).toEqual([]);
    await page.getByLabel("Send later").check();
    await page.getByRole("button", { name: "Schedule" }).click();
    await page.getByText("Message scheduled for").waitFor();
    const listed = (await a.client.GET("/api/v1/messages")).data!.data;
    expect(listed[0]).toMatchObject({ to: "+14155550701", body: "See you on Monday at 10:00." });

    await page.goto(`${baseUrl}/dashboard/settings/templates`);
    await page.getByRole("button", { name: "Delete template Reminder" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete template" }).click();
    await page.getByRole("dialog").getByText("still waiting to be sent").waitFor();
    expect(unexpectedProblems(page.problems, 409)).toEqual([]);
    await page.context().close();
  });

  it("shows a new account its first steps instead of empty charts, until its first message", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const page = await browser().newPage({ locale: "en-US" });
    await signIn(page, baseUrl, a.key, "/dashboard/overview");
    const steps = page.getByRole("region", { name: "First steps" });
    await steps.waitFor();
    expect(await steps.getByLabel("A curl command that sends a message").innerText()).toContain(
      `curl -s -X POST "${baseUrl}/api/v1/messages"`,
    );
    expect(await page.getByTestId("overview-totals").count()).toBe(0);
    expect(await audit(page, "first steps")).toEqual([]);
    expect(
      (await a.request("POST", "/api/v1/messages", { to: "+14155550801", from: "ACME", body: "First", scheduledAt: inHours(1) })).status,
    ).toBe(201);
    await page.reload();
    await page.getByTestId("overview-totals").waitFor();
    expect(await steps.count()).toBe(0);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("reschedules a scheduled campaign from its page", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Later", message: "Soon", type: "scheduled", scheduledAt: inHours(48), recipients: ["+14155550901"] },
    });
    const page = await browser().newPage({ locale: "en-US", timezoneId: "UTC" });
    await signIn(page, baseUrl, a.key, `/dashboard/campaigns/${created!.campaignId}`);
    const form = page.getByRole("form", { name: "Reschedule" });
    const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await form.getByLabel("Start at").fill(`${day}T09:30`);
    await form.getByRole("button", { name: "Move the campaign" }).click();
    await page.getByText("Campaign moved: it starts").waitFor();
    expect(
      (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: created!.campaignId } } })).data!.scheduledAt,
    ).toBe(`${day}T09:30:00.000Z`);
    expect(await audit(page, "campaign with its reschedule form")).toEqual([]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("pauses and resumes a campaign, and duplicates it as a draft that starts from its page", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Weekly", message: "Hello", type: "scheduled", scheduledAt: inHours(24), recipients: ["+14155550902", "+14155550903"] },
    });
    const page = await browser().newPage({ locale: "en-US", timezoneId: "UTC" });
    await signIn(page, baseUrl, a.key, `/dashboard/campaigns/${created!.campaignId}`);
    const controls = page.getByTestId("campaign-controls");
    await controls.getByRole("button", { name: "Pause sending" }).click();
    await page.getByText("Sending paused").waitFor();
    await page.locator(".chip-paused").waitFor();
    expect(await page.locator("#campaign-state").textContent()).toMatch(/^Paused since .*: nothing more is sent until you resume it\.$/);
    expect(await audit(page, "paused campaign")).toEqual([]);
    await controls.getByRole("button", { name: "Resume sending" }).click();
    await page.getByText("Campaign started: it sends at its scheduled time.").waitFor();
    await page.locator(".chip-scheduled").waitFor();

    await controls.getByRole("button", { name: "Duplicate as a draft" }).click();
    await page.getByRole("heading", { name: "Campaign “Weekly (copy)”" }).waitFor();
    await page.locator(".chip-draft").waitFor();
    expect(await audit(page, "draft campaign")).toEqual([]);
    const copyId = page.url().split("/").at(-1)!;
    expect(copyId).not.toBe(created!.campaignId);
    await controls.getByRole("button", { name: "Start this campaign" }).click();
    await page.getByText("Sending resumed.").waitFor();
    const copy = (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: copyId } } })).data!;
    expect(copy).toMatchObject({ status: "sending", type: "instant", message: "Hello" });
    expect(copy.stats.total).toBe(2);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("edits a draft's name and time before it starts, and discards another draft", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Monthly", message: "Hello", type: "instant", recipients: ["+14155550912", "+14155550913"] },
    });
    const duplicate = async () =>
      (await a.client.POST("/api/v1/campaigns/{campaignId}/duplicate", { params: { path: { campaignId: created!.campaignId } }, body: {} }))
        .data!;
    const draft = await duplicate();
    const page = await browser().newPage({ locale: "en-US", timezoneId: "UTC" });
    await signIn(page, baseUrl, a.key, `/dashboard/campaigns/${draft.campaignId}`);
    await page.getByRole("heading", { name: "Edit the draft", level: 3 }).waitFor();
    expect(await audit(page, "draft with its edit form")).toEqual([]);
    // A time to the minute, two days ahead, typed in the browser's zone (UTC here).
    const at = new Date(Math.ceil((Date.now() + 2 * 86_400_000) / 60_000) * 60_000);
    await page.getByLabel("Name", { exact: true }).fill("Monthly, edited");
    await page.getByLabel("Send at", { exact: true }).fill(at.toISOString().slice(0, 16));
    await page.getByRole("button", { name: "Save the draft" }).click();
    await page.getByText("Draft saved: once started, it sends at its time.").waitFor();
    await page.getByRole("heading", { name: "Campaign “Monthly, edited”" }).waitFor();
    await page.locator(".chip-draft").waitFor();
    const saved = (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: draft.campaignId } } })).data!;
    expect(saved).toMatchObject({ name: "Monthly, edited", status: "draft", type: "scheduled", scheduledAt: at.toISOString() });

    // Another draft discarded: the dialog says nothing was sent, and it is over.
    const other = await duplicate();
    await page.goto(`${baseUrl}/dashboard/campaigns/${other.campaignId}`);
    await page.getByRole("button", { name: "Discard draft" }).click();
    const dialog = page.getByRole("dialog", { name: "Discard this draft?" });
    await dialog.getByText("Nothing of it has been sent.", { exact: false }).waitFor();
    expect(await dialog.getByText("not recalled", { exact: false }).count()).toBe(0);
    await dialog.getByRole("button", { name: "Discard draft" }).click();
    await page.getByText("Draft discarded: nothing of it was sent.").waitFor();
    await page.locator(".chip-cancelled").waitFor();
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("shows long ids short in lists, whole in their tooltip, and copies them whole with a Copy button", async () => {
    const { baseUrl } = server();
    const a = await server().account();
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "Audited" } });
    const page = await browser().newPage({ locale: "en-US" });
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await signIn(page, baseUrl, a.key, "/dashboard/audit-log");
    const id = group!.groupId;
    const shown = page.locator(`code[data-id="${id}"]`);
    expect(await shown.textContent()).toBe(`${id.slice(0, 8)}…${id.slice(-4)}`);
    expect(await shown.getAttribute("title")).toBe(id);
    await page.getByRole("button", { name: `Copy resource ${id}` }).click();
    await page.getByRole("button", { name: `Copied resource ${id}` }).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(id);
    expect(await audit(page, "audit log with short ids")).toEqual([]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});
