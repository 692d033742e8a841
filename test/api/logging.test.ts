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
});
