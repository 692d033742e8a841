import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { inHours, useTestServer } from "../helpers/server.js";

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(chunk.toString());
    done();
  },
});
const server = useTestServer({}, { log: createLogger("debug", sink) });

describe("request logs", () => {
  it("log every request with its id, and never the API key, idempotency key or message body", async () => {
    const a = await server().account();
    const body = "secret body text 8472";
    const res = await a.request(
      "POST",
      "/api/v1/scheduler/schedule",
      { to: "+14155550123", body, from: "ACME", scheduledAt: inHours(1) },
      {
        "Idempotency-Key": "idem-key-5531",
        "X-Request-Id": "log-test-1",
      },
    );
    expect(res.status).toBe(201);
    const { data: webhook } = await a.client.POST("/api/v1/webhooks", { body: { name: "w", url: "http://127.0.0.1:9/x" } });
    await a.request("GET", "/api/v1/nope");

    const log = lines.join("");
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.req?.id === "log-test-1");
    expect(entry).toMatchObject({ req: { method: "POST", url: "/api/v1/scheduler/schedule" }, res: { statusCode: 201 } });
    expect(entry.req.headers.authorization).toBe("[redacted]");
    for (const secret of [a.key, a.key.split("_")[2]!, "idem-key-5531", body, webhook!.secret]) expect(log).not.toContain(secret);
  });

  it("never logs a key sent the wrong way (other headers, a cookie, the query string) and masks phone numbers in URLs", async () => {
    const a = await server().account();
    const secret = a.key.split("_")[2]!;
    const wrongWays: [string, Record<string, string>][] = [
      ["/api/v1/messages", { "X-Api-Key": a.key }],
      ["/api/v1/messages", { "Api-Key": a.key }],
      ["/api/v1/messages", { "X-Auth-Token": a.key }],
      ["/api/v1/messages", { Cookie: `session=${a.key}` }],
      ["/api/v1/messages", { "Proxy-Authorization": `Bearer ${a.key}` }],
      ["/api/v1/messages", { "X-Custom": a.key }],
      [`/api/v1/messages?api_key=${a.key}`, {}],
      [`/api/v1/messages?token=${secret}`, {}],
      [`/api/v1/messages?cursor=${a.key}`, {}],
    ];
    for (const [path, headers] of wrongWays) {
      const res = await fetch(`${server().baseUrl}${path}`, { headers });
      expect(res.status, `${path} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    await a.request("GET", "/api/v1/messages?phone=%2B14155550123");
    const log = lines.join("");
    expect(log).not.toContain(secret);
    expect(log).not.toContain("14155550123");
    expect(log).toContain("********123");
  });
});

describe("errors that are not Error objects", () => {
  it("are logged as their text, scrubbed, instead of crashing the logger (a library's rejection with a string or nothing)", () => {
    const own: string[] = [];
    const log = createLogger(
      "info",
      new Writable({
        write(chunk, _enc, done) {
          own.push(chunk.toString());
          done();
        },
      }),
    );
    const key = `sms_${"a".repeat(12)}_${"b".repeat(32)}`;
    log.fatal({ err: `initdb exited with code 1 near ${key}` }, "cannot start");
    log.error({ err: undefined }, "rejected with nothing");
    const [first, second] = own.map((line) => JSON.parse(line) as { err?: { message: string } });
    expect(first!.err!.message).toBe(`initdb exited with code 1 near sms_${"a".repeat(12)}_[redacted]`);
    expect(second!.err).toBeUndefined();
  });
});
