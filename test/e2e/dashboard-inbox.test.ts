// Two-way messaging in the dashboard, in a real browser against a real server, database and worker: the inbox
// of threads (latest message, unread until opened) and a conversation (both directions, a reply sent at once), opting a number out from the conversation (a
// reply box then closes, saying why), the message page of an inbound message (complete or not),
// Settings → Numbers (add, the 409 of a taken number, delete), Settings → Opt-outs (add, a keyword entry,
// remove) and every one of these pages at phone width.
import { describe, expect, it } from "vitest";
import { audit, browserAvailable, openForm, unexpectedProblems, screenshot, signIn, useBrowser } from "../helpers/browser.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const browser = useBrowser();

async function withNumber(number: string): Promise<TestAccount> {
  const a = await server().account();
  expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: number, name: "Support line" })).status).toBe(201);
  return a;
}

async function inbound(a: TestAccount, from: string, to: string, body: string): Promise<string> {
  const res = await a.request("POST", "/api/v1/simulator/inbound", { from, to, body });
  expect(res.status).toBe(202);
  return ((await res.json()) as { messageId: string }).messageId;
}

describe.skipIf(!browserAvailable)("dashboard: inbox and conversations", { timeout: 90_000 }, () => {
  it("shows a received message in the inbox, opens its conversation with both directions and sends a reply", async () => {
    const { baseUrl } = server();
    const a = await withNumber("+14155550401");
    const person = "+14155550402";
    await inbound(a, person, "+14155550401", "Is my order ready?");

    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/inbox");
    await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
    // One thread per number: its latest message, unread until opened.
    await inbound(a, person, "+14155550401", "It was order 42.");
    const row = page.locator(`li[data-phone="${person}"]`);
    await row.getByText("It was order 42.").waitFor();
    await row.getByText("2 unread").waitFor();
    await screenshot(page, "dashboard-inbox");

    await row.getByRole("link", { name: `Conversation with ${person}, 2 unread` }).click();
    await page.getByRole("heading", { name: `Conversation with ${person}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/conversations/${encodeURIComponent(person)}`);
    await page.getByTestId("opt-out-state").getByText("Not opted out").waitFor();
    await page.locator('[data-direction="inbound"]').getByText("Is my order ready?").waitFor();

    // The reply goes from the number the person wrote to, at once: the worker sends it and the simulator delivers it.
    expect(await page.getByLabel("From", { exact: true }).inputValue()).toBe("+14155550401");
    await page.getByLabel("Message", { exact: true }).fill("Yes, it ships today.");
    await page.getByRole("button", { name: "Send reply" }).click();
    await page.getByText("Reply sent").waitFor();
    const reply = page.locator('[data-direction="outbound"]');
    await reply.getByText("Yes, it ships today.").waitFor();
    // Sent by the worker, then delivered by the simulator: more than the default wait on a busy machine.
    await reply.locator(".chip-delivered").waitFor({ timeout: 45_000 });
    // Both directions, oldest first.
    expect(await page.locator("ol.conversation > li").evaluateAll((items) => items.map((li) => li.getAttribute("data-direction")))).toEqual(
      ["inbound", "inbound", "outbound"],
    );
    // Opened: the thread is read.
    const { data: threads } = await a.client.GET("/api/v1/conversations");
    expect(threads!.data).toMatchObject([{ phone: person, unread: 0, received: 2 }]);
    const { data: sent } = await a.client.GET("/api/v1/messages", { params: { query: { direction: "outbound", phone: person } } });
    expect(sent!.data).toMatchObject([{ to: person, from: "+14155550401", body: "Yes, it ships today.", status: "delivered" }]);
    await screenshot(page, "dashboard-conversation");

    // The inbound message's own page: its direction, when it arrived, and that it is complete.
    await page
      .locator('[data-direction="inbound"]')
      .first()
      .getByRole("link", { name: /Details/ })
      .click();
    await page.getByRole("heading", { name: `Message from ${person}`, level: 1 }).waitFor();
    await page.getByTestId("message-direction").getByText("inbound").waitFor();
    await page.getByTestId("message-incomplete").getByText("every part arrived").waitFor();
    expect(unexpectedProblems(page.problems, 404)).toEqual([]);
    await page.context().close();
  });

  it("live lists: Messages and the inbox show new items and status changes without a reload or Refresh", async () => {
    const { baseUrl } = server();
    const a = await withNumber("+14155550461");
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/messages");
    await page.getByRole("heading", { name: "Messages", level: 1 }).waitFor();
    await page.getByText("No messages", { exact: false }).first().waitFor();
    // A mark on the window: a reload of the page would take it away.
    await page.evaluate("window.stillThisPage = true");
    // A message sent by the API comes into the open list, then its status moves on as the carrier answers.
    const sent = await a.request("POST", "/api/v1/messages", { to: "+14155550462", from: "+14155550461", body: "Live, please." });
    expect(sent.status).toBe(201);
    const { messageId } = (await sent.json()) as { messageId: string };
    const row = page.locator(`li[data-message-id="${messageId}"]`);
    await row.getByText("Live, please.").waitFor();
    await row.locator(".chip-delivered").waitFor({ timeout: 45_000 });
    // The inbox: a message received while it is open.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Inbox", exact: true }).click();
    await page.getByRole("heading", { name: "Inbox", level: 1 }).waitFor();
    await inbound(a, "+14155550463", "+14155550461", "Arrived while you looked.");
    await page.locator('li[data-phone="+14155550463"]').getByText("Arrived while you looked.").waitFor();
    expect(await page.evaluate<boolean>("window.stillThisPage === true")).toBe(true);
    expect(await audit(page, "the inbox, live")).toEqual([]);
    expect(unexpectedProblems(page.problems)).toEqual([]);
    await page.context().close();
  });

  it("marks an inbound message whose parts did not all arrive as incomplete, on its page", async () => {
    const { baseUrl, db } = server();
    const a = await withNumber("+14155550451");
    const person = "+14155550452";
    const id = await inbound(a, person, "+14155550451", "The first part of a long");
    // As the SMPP reassembly leaves a long message whose missing parts never came before the timeout.
    await db("messages").where({ id }).update({ incomplete: true });

    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, `/dashboard/messages/${id}`);
    await page.getByRole("heading", { name: `Message from ${person}`, level: 1 }).waitFor();
    await page.getByTestId("message-incomplete").getByText("parts of this long message never arrived").waitFor();
    await page.getByRole("link", { name: `With ${person}` }).click();
    await page.getByRole("heading", { name: `Conversation with ${person}`, level: 1 }).waitFor();
    expect(unexpectedProblems(page.problems, 404)).toEqual([]);
    await page.context().close();
  });

  it("opts a number out from its conversation: the reply box closes with the reason, and the opt-out can be removed", async () => {
    const { baseUrl } = server();
    const a = await withNumber("+14155550411");
    const person = "+14155550412";
    await inbound(a, person, "+14155550411", "Hello?");

    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, `/dashboard/conversations/${encodeURIComponent(person)}`);
    await page.getByTestId("opt-out-state").getByText("Not opted out").waitFor();
    await page.getByRole("button", { name: "Opt out this number" }).click();
    // Exact: "Not opted out" holds the words "opted out" too.
    await page.getByTestId("opt-out-state").getByText("Opted out", { exact: true }).waitFor();
    const { data: entry } = await a.client.GET("/api/v1/opt-outs/{phone}", { params: { path: { phone: person } } });
    expect(entry).toMatchObject({ phone: person, source: "api", keyword: null });

    // The reply box is closed, with the reason, while the number is opted out: nothing could be sent.
    const closed = page.getByTestId("reply-closed");
    await closed.getByText(`${person} opted out: no message can be sent until they send START.`).waitFor();
    expect(await page.getByLabel("Message", { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Send reply" }).isDisabled()).toBe(true);
    await screenshot(page, "dashboard-conversation-opted-out");
    const { data: outbound } = await a.client.GET("/api/v1/messages", { params: { query: { direction: "outbound", phone: person } } });
    expect(outbound!.data).toEqual([]);

    await page.getByRole("button", { name: "Remove the opt-out" }).click();
    await page.getByTestId("opt-out-state").getByText("Not opted out").waitFor();
    expect((await a.request("GET", `/api/v1/opt-outs/${encodeURIComponent(person)}`)).status).toBe(404);
    await expect.poll(() => closed.count()).toBe(0);
    expect(await page.getByLabel("Message", { exact: true }).isDisabled()).toBe(false);

    // The person texts STOP while the page is open: the conversation shows it (it polls), and with it the
    // opt-out, and the reply box closes again.
    await inbound(a, person, "+14155550411", "stop");
    await page.getByTestId("opt-out-state").getByText("by sending STOP").waitFor({ timeout: 30_000 });
    await closed.getByText(`${person} opted out: no message can be sent until they send START.`).waitFor();
    expect(await page.getByLabel("Message", { exact: true }).isDisabled()).toBe(true);
    const { data: after } = await a.client.GET("/api/v1/messages", { params: { query: { direction: "outbound", phone: person } } });
    expect(after!.data.map((m) => m.body)).toEqual([
      "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
    ]);
    expect(unexpectedProblems(page.problems, 404, 422)).toEqual([]);
    await page.context().close();
  });

  it("Settings → Numbers adds a number, says clearly when it is taken (409), and deletes one", async () => {
    const { baseUrl } = server();
    const other = await withNumber("+14155550421");
    const a = await server().account();
    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/settings/numbers");
    await page.getByText("No numbers yet").waitFor();

    await openForm(page, "Add a number");
    await page.getByLabel("Phone number").fill("+1 (415) 555-0422");
    await page.getByLabel("Name (optional)").fill("Sales");
    await page.getByRole("button", { name: "Add number" }).press("Enter");
    await page.getByText("Number +14155550422 added").waitFor();
    const row = page.locator('[data-number="+14155550422"]');
    await row.getByText("Sales").waitFor();

    // The form stays open for the next number. Taken by this account, then by another one: the same 409, said
    // the same way, never naming the owner.
    for (const taken of ["+14155550422", "+14155550421"]) {
      await page.getByLabel("Phone number").fill(taken);
      await page.getByRole("button", { name: "Add number" }).click();
      await page.getByTestId("number-taken").getByText(`The number ${taken} is already registered.`).waitFor();
    }
    await screenshot(page, "dashboard-numbers-taken");
    const { data: mine } = await a.client.GET("/api/v1/numbers");
    expect(mine!.data.map((n) => n.phoneNumber)).toEqual(["+14155550422"]);
    const { data: theirs } = await other.client.GET("/api/v1/numbers");
    expect(theirs!.data.map((n) => n.phoneNumber)).toEqual(["+14155550421"]);

    await row.getByRole("button", { name: "Delete number +14155550422" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete number" }).click();
    await page.getByText("Number +14155550422 deleted.").waitFor();
    await row.waitFor({ state: "detached" });
    const { data: after } = await a.client.GET("/api/v1/numbers");
    expect(after!.data).toEqual([]);
    expect(unexpectedProblems(page.problems, 409)).toEqual([]);
    await page.context().close();
  });

  it("Settings → Opt-outs lists keyword and added entries with their source, adds one and removes one", async () => {
    const { baseUrl } = server();
    const a = await withNumber("+14155550431");
    expect((await a.request("POST", "/api/v1/contacts", { phone: "+14155550432", firstName: "Ada" })).status).toBe(201);
    await inbound(a, "+14155550432", "+14155550431", "Stop.");

    const page = await browser().newPage();
    await signIn(page, baseUrl, a.key, "/dashboard/settings/opt-outs");
    const byKeyword = page.locator('[data-phone="+14155550432"]');
    await byKeyword.locator('[data-label="Source"]').getByText("keyword").waitFor();
    await byKeyword.locator('[data-label="Keyword"]').getByText("STOP").waitFor();
    // The contact's name beside its number.
    await byKeyword.getByRole("link", { name: "Conversation with +14155550432 (Ada)" }).getByText("Ada").waitFor();

    await openForm(page, "Add a number");
    await page.getByLabel("Phone number").fill("+14155550433");
    await page.getByRole("button", { name: "Add to the opt-out list" }).click();
    await page.getByText("+14155550433 is on the opt-out list").waitFor();
    const added = page.locator('[data-phone="+14155550433"]');
    await added.locator('[data-label="Source"]').getByText("added by hand (API)").waitFor();
    await screenshot(page, "dashboard-opt-outs");
    const { data: list } = await a.client.GET("/api/v1/opt-outs");
    expect(list!.data).toMatchObject([
      { phone: "+14155550433", source: "api", keyword: null },
      { phone: "+14155550432", source: "keyword", keyword: "STOP" },
    ]);

    await byKeyword.getByRole("button", { name: "Remove +14155550432 from the list" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove opt-out" }).click();
    await byKeyword.waitFor({ state: "detached" });
    const { data: rest } = await a.client.GET("/api/v1/opt-outs");
    expect(rest!.data.map((o) => o.phone)).toEqual(["+14155550433"]);
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("fits a phone screen: no page of two-way messaging scrolls sideways at 375 px", async () => {
    const { baseUrl } = server();
    const a = await withNumber("+14155550441");
    const person = "+14155550442";
    await inbound(a, person, "+14155550441", "A rather long question about the delivery window of my order, please?");
    await inbound(a, "+14155550443", "+14155550441", "STOP");
    const page = await browser().newPage({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    await signIn(page, baseUrl, a.key, "/dashboard/inbox");
    // The number that sent STOP is marked in its thread.
    await page.locator('li[data-phone="+14155550443"]').getByText("opted out").waitFor();
    // With the pages' creation forms open, so the forms are measured too.
    for (const [path, heading, shown, forms] of [
      ["/inbox", "Inbox", "A rather long question", []],
      [`/conversations/${encodeURIComponent(person)}`, `Conversation with ${person}`, "A rather long question", []],
      ["/settings/numbers", "Settings → Numbers", "Support line", ["Add a number"]],
      ["/settings/opt-outs", "Settings → Opt-outs", "+14155550443", ["Add a number", "Import a file"]],
      ["/settings/replies", "Settings → Replies", "Save replies", []],
    ] as const) {
      await page.goto(`${baseUrl}/dashboard${path}`);
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      await page.getByText(shown).first().waitFor();
      for (const form of forms) await openForm(page, form);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      await screenshot(page, `dashboard-phone${path.replace(/[^a-z-]+/g, "-")}`);
    }
    expect(unexpectedProblems(page.problems, 404)).toEqual([]);
    await page.context().close();
  });
});
