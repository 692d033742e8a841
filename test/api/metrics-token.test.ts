// METRICS_TOKEN set: /metrics answers only a request bearing it; without it (contract.test.ts) /metrics is open.
import { describe, expect, it } from "vitest";
import { problemOf, useTestServer } from "../helpers/server.js";

const TOKEN = "metrics-token-for-this-test";
const server = useTestServer({ metricsToken: TOKEN });

describe("GET /metrics with METRICS_TOKEN", () => {
  it("answers 401 problem without the token or with another, and the metrics with it", async () => {
    const url = `${server().baseUrl}/metrics`;
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: "Bearer wrong" },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Basic ${TOKEN}` },
    ]) {
      const res = await fetch(url, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await problemOf(res)).toMatchObject({ status: 401, code: "unauthorized" });
    }
    const res = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("http_request_duration_seconds");
  });

  it("leaves /healthz open", async () => {
    expect((await fetch(`${server().baseUrl}/healthz`)).status).toBe(200);
  });
});
