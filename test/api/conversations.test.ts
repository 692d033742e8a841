// The inbox as threads (docs/API.md, "Conversations"): one per number that sent the account messages, kept by the
// inbound path with the message, its unread count until marked read, its opted-out mark, paged by cursor.
import { describe, expect, it } from "vitest";
import { useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();

async function accountWithNumber(number: string): Promise<TestAccount> {
  const a = await server().account();
  expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: number })).status).toBe(201);
  return a;
}
const receive = async (a: TestAccount, from: string, to: string, body: string) =>
  expect((await a.request("POST", "/api/v1/simulator/inbound", { from, to, body })).status).toBe(202);
const threads = async (a: TestAccount, query = "") =>
  (await (await a.request("GET", `/api/v1/conversations${query}`)).json()) as {
    data: {
      phone: string;
      lastBody: string;
      received: number;
      unread: number;
      readAt: string | null;
      optedOut: boolean;
      lastMessageId: string;
    }[];
    nextCursor: string | null;
  };

describe("conversations", () => {
  it("keep one thread per number, the latest first, with unread counts until marked read", async () => {
    const a = await accountWithNumber("+14155550700");
    await receive(a, "+14155550701", "+14155550700", "Hi, are you open?");
    await receive(a, "+14155550702", "+14155550700", "Booking for two");
    await receive(a, "+14155550701", "+14155550700", "Tomorrow I mean");
    const all = await threads(a);
    expect(all.data.map((t) => [t.phone, t.lastBody, t.received, t.unread, t.readAt])).toEqual([
      ["+14155550701", "Tomorrow I mean", 2, 2, null],
      ["+14155550702", "Booking for two", 1, 1, null],
    ]);
    const { data: latest } = await a.client.GET("/api/v1/messages/{messageId}", {
      params: { path: { messageId: all.data[0]!.lastMessageId } },
    });
    expect(latest).toMatchObject({ direction: "inbound", body: "Tomorrow I mean" });

    const read = await a.request("POST", "/api/v1/conversations/14155550701/read");
    expect(read.status).toBe(200);
    const marked = (await read.json()) as { unread: number; readAt: string; received: number };
    expect(marked).toMatchObject({ unread: 0, received: 2 });
    expect(Date.parse(marked.readAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await threads(a, "?unread=true")).data.map((t) => t.phone)).toEqual(["+14155550702"]);
    await receive(a, "+14155550701", "+14155550700", "Still there?");
    expect((await threads(a)).data[0]).toMatchObject({ phone: "+14155550701", unread: 1, received: 3, readAt: marked.readAt });
  });

  it("mark a number that opted out, and answer 404 for a number that sent nothing", async () => {
    const a = await accountWithNumber("+14155550710");
    await receive(a, "+14155550711", "+14155550710", "STOP");
    expect((await threads(a)).data).toEqual([expect.objectContaining({ phone: "+14155550711", optedOut: true, lastBody: "STOP" })]);
    const missing = await a.request("POST", "/api/v1/conversations/%2B14155550719/read");
    expect(missing.status).toBe(404);
    // Another account sees none of them.
    const b = await server().account();
    expect((await threads(b)).data).toEqual([]);
    expect((await b.request("POST", "/api/v1/conversations/14155550711/read")).status).toBe(404);
  });

  it("page by cursor, each thread once", async () => {
    const a = await accountWithNumber("+14155550720");
    const senders = Array.from({ length: 5 }, (_v, i) => `+1415555073${i}`);
    for (const from of senders) await receive(a, from, "+14155550720", `from ${from}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await threads(a, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.data.map((t) => t.phone));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...senders].reverse());
  });
});
