import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { createApp } from "../../server/http/app.js";
import { createLogger } from "../../server/logger.js";
import { problemOf, useTestServer } from "../helpers/server.js";

// 1 request/s after a burst of 5: slow enough that a loaded machine cannot refill a token mid-test.
const server = useTestServer({ rateLimitPerSecond: 1, rateLimitBurst: 5 });

describe("rate limits per API key", () => {
  it("answers 429 with Retry-After past the burst, with RateLimit headers throughout, and recovers", async () => {
    const a = await server().account();
    // Sent at once: one after another on a loaded machine, a second could pass and refill a token mid-burst.
    const responses = await Promise.all(Array.from({ length: 7 }, () => a.request("GET", "/api/v1/webhooks")));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    for (const r of responses) expect(r.headers.get("ratelimit-limit")).toBe("5");
    expect(responses.map((r) => r.headers.get("ratelimit-remaining"))).toContain("4");
    const last = responses.find((r) => r.status === 429);
    const problem = await problemOf(last!);
    expect(problem.code).toBe("rate_limited");
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get("ratelimit-remaining")).toBe("0");
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    expect((await a.request("GET", "/api/v1/webhooks")).status).toBe(200);
  });

  it("one noisy key does not limit another", async () => {
    const noisy = await server().account();
    const quiet = await server().account();
    await Promise.all(Array.from({ length: 20 }, () => noisy.request("GET", "/api/v1/webhooks")));
    expect((await noisy.request("GET", "/api/v1/webhooks")).status).toBe(429);
    expect((await quiet.request("GET", "/api/v1/webhooks")).status).toBe(200);
  });

  it("is shared by every server instance on the database", async () => {
    const a = await server().account();
    // A second, independent app instance over the same database.
    const other = createApp({
      db: server().db,
      log: createLogger("silent"),
      config: { ...loadConfig({}), rateLimitPerSecond: 1, rateLimitBurst: 5 },
      now: () => new Date(),
    });
    const listener = await new Promise<import("node:http").Server>((resolve) => {
      const s = other.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const otherUrl = `http://127.0.0.1:${(listener.address() as import("node:net").AddressInfo).port}`;
      // The new instance's first request builds its validator (a second on a loaded machine): made with another
      // account's key, so that the counted requests below come close together.
      const warm = await server().account();
      expect((await fetch(`${otherUrl}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${warm.key}` } })).status).toBe(200);
      const statuses: number[] = [];
      const started = performance.now();
      for (let i = 0; i < 10; i++) {
        const url = `${i % 2 ? otherUrl : server().baseUrl}/api/v1/webhooks`;
        statuses.push((await fetch(url, { headers: { Authorization: `Bearer ${a.key}` } })).status);
      }
      // Shared: the burst of 5 and a token a second since, whichever instance is asked (each its own would pass
      // all 10). Counted against the time taken, so a slow machine cannot make it fail.
      const refilled = Math.ceil((performance.now() - started) / 1000);
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5 + refilled);
      if (refilled < 5) expect(statuses).toContain(429);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });

  it("does not spend a key's tokens on requests with its id and a wrong secret", async () => {
    const a = await server().account();
    // The key id is not secret (it is the key's public half); a wrong secret must not drain the bucket.
    const forged = a.key.replace(/_[0-9A-Za-z]{32}$/, `_${"x".repeat(32)}`);
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${server().baseUrl}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${forged}` } });
      expect(res.status).toBe(401);
      expect(res.headers.get("ratelimit-remaining")).toBeNull();
    }
    const res = await a.request("GET", "/api/v1/webhooks");
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-remaining")).toBe("4");
  });
});
