// Searching messages (GET /api/v1/messages with q, to, from, since, until): text in any case, number prefixes,
// creation time, together with the list's filters; a page looks through a bounded window of messages and says
// where to search on, so following the cursors finds every match once; another account's messages never show.
import { beforeAll, describe, expect, it } from "vitest";
import { inHours, useTestServer, type TestAccount } from "../helpers/server.js";

// A window of 5 messages per page, so a dozen messages take several windows.
const server = useTestServer({ searchScanRows: 5 });

interface Listed {
  messageId: string;
  to: string;
  from: string;
  body: string;
  status: string;
}

/** Every match, following the cursors to the end; and how many pages it took. */
async function searchAll(a: TestAccount, query: string): Promise<{ found: Listed[]; pages: number }> {
  const found: Listed[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await a.request("GET", `/api/v1/messages?limit=3&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const page = (await res.json()) as { data: Listed[]; nextCursor: string | null };
    expect(page.data.length).toBeLessThanOrEqual(3);
    found.push(...page.data);
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 50);
  return { found, pages };
}

let a: TestAccount;
const sent: { to: string; from: string; body: string; messageId: string; createdAt: number }[] = [];
let between = "";

beforeAll(async () => {
  a = await server().account();
  const other = await server().account();
  // A number of its own to send from, besides sender IDs.
  const op = await server().operator();
  const held = await op.request("POST", `/api/v1/accounts/${a.accountId}/numbers`, { phoneNumber: "+14155550999" });
  expect(held.status, await held.clone().text()).toBe(201);
  const messages = [
    { to: "+447400123401", from: "ACME", body: "Your ORDER 1041 has shipped" },
    { to: "+447400123402", from: "ACME", body: "Hello from the shop" },
    { to: "+14155550101", from: "Shop", body: "order 1042: out for delivery" },
    { to: "+14155550102", from: "+14155550999", body: "A 100% discount, today only" },
    { to: "+447400123403", from: "ACME", body: "Nothing to see" },
    { to: "+33612345678", from: "Boutique", body: "Votre commande (order) est prête" },
  ];
  for (const [i, m] of [...messages, ...messages.map((m) => ({ ...m, body: `${m.body} (again)` }))].entries()) {
    if (i === messages.length) {
      // A boundary between the first six and the second six, for since/until.
      await new Promise((r) => setTimeout(r, 5));
      between = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 5));
    }
    const res = await a.request("POST", "/api/v1/scheduler/schedule", { ...m, scheduledAt: inHours(24) });
    expect(res.status, await res.clone().text()).toBe(201);
    const { messageId } = (await res.json()) as { messageId: string };
    sent.push({ ...m, messageId, createdAt: Date.now() });
  }
  // Another account's message that matches every search below: it must never be found.
  await other.request("POST", "/api/v1/scheduler/schedule", {
    to: "+447400123499",
    from: "ACME",
    body: "order elsewhere",
    scheduledAt: inHours(24),
  });
});

const ids = (xs: { messageId: string }[]) => xs.map((x) => x.messageId).sort();

describe("searching messages", () => {
  it("finds text in any case, across windows, each match once", async () => {
    const { found, pages } = await searchAll(a, "q=ORDER");
    expect(ids(found)).toEqual(ids(sent.filter((m) => m.body.toLowerCase().includes("order"))));
    expect(found).toHaveLength(6);
    // 12 messages in windows of 5: at least three pages, some of them partial.
    expect(pages).toBeGreaterThanOrEqual(3);
    // Newest first, as every list.
    expect(found.map((m) => m.messageId)).toEqual(
      sent
        .filter((m) => m.body.toLowerCase().includes("order"))
        .map((m) => m.messageId)
        .reverse(),
    );
  });

  it("takes % and _ literally", async () => {
    const { found } = await searchAll(a, `q=${encodeURIComponent("100%")}`);
    expect(ids(found)).toEqual(ids(sent.filter((m) => m.body.includes("100%"))));
    expect((await searchAll(a, "q=_")).found).toEqual([]);
  });

  it("finds by the prefix of the number sent to, with or without the +, and of the sender, in any case", async () => {
    const gb = sent.filter((m) => m.to.startsWith("+4474"));
    expect(ids((await searchAll(a, `to=${encodeURIComponent("+4474")}`)).found)).toEqual(ids(gb));
    expect(ids((await searchAll(a, "to=4474")).found)).toEqual(ids(gb));
    expect(ids((await searchAll(a, "from=acme")).found)).toEqual(ids(sent.filter((m) => m.from === "ACME")));
    expect(ids((await searchAll(a, "from=1415555")).found)).toEqual(ids(sent.filter((m) => m.from === "+14155550999")));
  });

  it("narrows by creation time, and combines with the list's filters", async () => {
    const later = sent.slice(6);
    expect(ids((await searchAll(a, `since=${between}`)).found)).toEqual(ids(later));
    expect(ids((await searchAll(a, `until=${between}`)).found)).toEqual(ids(sent.slice(0, 6)));
    const orderSince = await searchAll(a, `q=order&since=${between}&status=scheduled`);
    expect(ids(orderSince.found)).toEqual(ids(later.filter((m) => m.body.toLowerCase().includes("order"))));
    expect((await searchAll(a, "q=order&status=delivered")).found).toEqual([]);
  });

  it("refuses a number prefix that is not digits, with a 400 problem", async () => {
    const res = await a.request("GET", "/api/v1/messages?to=abc");
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/problem\+json/);
  });
});
