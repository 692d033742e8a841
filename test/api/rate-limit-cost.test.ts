import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import knex, { type Knex } from "knex";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { createApp } from "../../server/http/app.js";
import { createLogger } from "../../server/logger.js";
import { problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

// 1 request/s with a burst of 100, and 1 bulk row/s with a burst of 100: a test lasts a few seconds, so refill
// moves a count by a few tokens at most.
const server = useTestServer({
  rateLimitPerSecond: 1,
  rateLimitBurst: 100,
  rateLimitBulkPerSecond: 1,
  rateLimitBulkBurst: 100,
  unauthenticatedPerSecond: 1,
  unauthenticatedBurst: 5,
});

const numbers = (n: number) => Array.from({ length: n }, (_, i) => `+1415555${String(i).padStart(4, "0")}`);
const campaign = (recipients: string[]) => ({ name: "big", message: "Hello", type: "instant", recipients });
const campaignCount = async (a: TestAccount) =>
  Number((await server().db("campaigns").where({ account_id: a.accountId }).count({ n: "*" }))[0]!.n);

describe("bulk rows are charged to a bucket of their own", () => {
  it("throttles an account's 10,000-recipient campaigns; its own reads and another account's requests all succeed", async () => {
    const noisy = await server().account();
    const quiet = await server().account();
    let noisyDone = false;
    const quietStatuses: number[] = [];
    const quietLoop = (async () => {
      // At most 60 requests: well inside the quiet account's own burst of 100.
      while (!noisyDone && quietStatuses.length < 60) quietStatuses.push((await quiet.request("GET", "/api/v1/webhooks")).status);
    })();
    const noisyStatuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await noisy.request("POST", "/api/v1/campaigns", campaign(numbers(10_000)));
      noisyStatuses.push(res.status);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    noisyDone = true;
    await quietLoop;

    // The first one fits a full bulk bucket and leaves it ~9,900 rows in debt: the next bulk requests are refused.
    expect(noisyStatuses).toEqual([201, 429, 429, 429, 429]);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(9_000);
    const problem = await problemOf(refused!);
    expect(problem.code).toBe("rate_limited");
    expect(problem.detail).toContain("bulk bucket");
    expect(await campaignCount(noisy)).toBe(1);
    // Its other requests are not held up by the bulk debt.
    expect((await noisy.request("GET", "/api/v1/webhooks")).status).toBe(200);
    expect(quietStatuses.length).toBeGreaterThan(0);
    expect(quietStatuses.every((s) => s === 200)).toBe(true);
  });

  it("charges one bulk row per recipient: 50 fit the burst of 100, 60 more are refused and nothing is stored", async () => {
    const a = await server().account();
    expect((await a.request("POST", "/api/v1/campaigns", campaign(numbers(50)))).status).toBe(201);
    const second = await a.request("POST", "/api/v1/campaigns", campaign(numbers(60)));
    expect(second.status).toBe(429);
    expect((await problemOf(second)).detail).toContain("carries 60 bulk rows");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await campaignCount(a)).toBe(1);
    // The request bucket counts requests: three so far.
    const plain = await a.request("GET", "/api/v1/webhooks");
    expect(plain.status).toBe(200);
    expect(Number(plain.headers.get("ratelimit-remaining"))).toBeGreaterThanOrEqual(95);
  });

  it("a 10,000-row import is followed at once by a send and a read of the same key; the next import waits", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/contacts/import", { contacts: numbers(10_000).map((phone) => ({ phone })) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ imported: 10_000, failed: 0 });
    const send = await a.request("POST", "/api/v1/messages", { to: "+14155550123", from: "ACME", body: "code 1234" });
    expect(send.status).toBe(201);
    expect((await a.request("GET", "/api/v1/contacts?limit=1")).status).toBe(200);
    const again = await a.request("POST", "/api/v1/contacts/import", { contacts: [{ phone: "+14155550999" }] });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(9_000);
  });
});

describe("the request limit is the account's", () => {
  it("all keys of an account share one bucket: a new key does not multiply the limit", async () => {
    const a = await server().account();
    for (let i = 0; i < 60; i++) expect((await a.request("GET", "/api/v1/webhooks")).status).toBe(200);
    const made = (await (await a.request("POST", "/api/v1/keys", { name: "second" })).json()) as { key: string };
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${server().baseUrl}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${made.key}` } });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
  });
});

/** An app of its own (its own address limiter) over `db`, on 127.0.0.1. */
async function ownApp(db: Knex, unauthenticatedBurst: number) {
  const config = {
    ...loadConfig({}),
    rateLimitPerSecond: 1,
    rateLimitBurst: 100,
    rateLimitBulkPerSecond: 1,
    rateLimitBulkBurst: 100,
    unauthenticatedPerSecond: 1,
    unauthenticatedBurst,
  };
  const listener = createServer(createApp({ db, log: createLogger("silent"), config, now: () => new Date() }));
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/api/v1/webhooks`,
    close: () => new Promise((r) => listener.close(r)),
  };
}

describe("requests without a valid key, per client address", () => {
  it("answers 429 with Retry-After once a burst of requests without a valid key (none, not Bearer, malformed, unknown) is spent", async () => {
    const headers = [undefined, "Basic abc", "Bearer sms_not_a_key", `Bearer sms_${"A".repeat(12)}_${"b".repeat(32)}`];
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 8; i++) {
      const auth = headers[i % headers.length];
      last = await fetch(`${server().baseUrl}/api/v1/webhooks`, { headers: auth ? { Authorization: auth } : {} });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    expect((await problemOf(last!)).code).toBe("rate_limited");
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("refuses a limited address before any database query: the app's database is closed and it still answers 429", async () => {
    // An app of its own over its own pool, so that pool can be closed under it.
    const db = knex({ client: "pg", connection: server().db.client.config.connection, pool: { min: 0, max: 2 } });
    const { url, close } = await ownApp(db, 3);
    const unknownKey = { Authorization: `Bearer sms_${"Z".repeat(12)}_${"y".repeat(32)}` };
    try {
      // Unknown keys are looked up in the database: three 401s empty the address's bucket.
      for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: unknownKey })).status).toBe(401);
      await db.destroy();
      // With no database at all, a lookup would fail (5xx); the limited address gets 429, so none was tried.
      for (let i = 0; i < 20; i++) {
        const res = await fetch(url, { headers: unknownKey });
        expect(res.status).toBe(429);
        expect((await problemOf(res)).code).toBe("rate_limited");
      }
    } finally {
      await close();
      await db.destroy();
    }
  });

  it("keeps serving a key this process has seen succeed, from a limited address; a known key id with a wrong secret takes nothing from that key", async () => {
    const a = await server().account();
    const { url, close } = await ownApp(server().db, 5);
    const get = (key: string) => fetch(url, { headers: { Authorization: `Bearer ${key}` } });
    try {
      expect((await get(a.key)).status).toBe(200);
      const forged = a.key.replace(/_[0-9A-Za-z]{32}$/, `_${"x".repeat(32)}`);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await get(forged)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      const ok = await get(a.key);
      expect(ok.status).toBe(200);
      // Only the two requests with the real secret were charged to the key.
      expect(Number(ok.headers.get("ratelimit-remaining"))).toBeGreaterThanOrEqual(98);
    } finally {
      await close();
    }
  });
});
