// The OpenAPI validator is created after the server starts listening (or by the first request), not with the
// app: requests that arrive while it is still being created wait for it and are validated all the same.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../../server/config.js";
import { createApp, createHttpServer } from "../../server/http/app.js";
import { createLogger } from "../../server/logger.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** An invalid body, an invalid query and a valid request, all sent at once. */
async function requestsAtOnce(baseUrl: string, key: string) {
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  const [badBody, badQuery, valid] = await Promise.all([
    fetch(`${baseUrl}/api/v1/scheduler/schedule`, { method: "POST", headers, body: JSON.stringify({ to: "+14155550123" }) }),
    fetch(`${baseUrl}/api/v1/messages?limit=many`, { headers }),
    fetch(`${baseUrl}/api/v1/messages?limit=1`, { headers }),
  ]);
  return {
    badBody: { status: badBody.status, body: (await badBody.json()) as { code: string; errors: { path: string }[] } },
    badQuery: { status: badQuery.status, body: (await badQuery.json()) as { code: string; errors: { path: string }[] } },
    valid: { status: valid.status, body: (await valid.json()) as { data: unknown[] } },
  };
}

function expectValidated(replies: Awaited<ReturnType<typeof requestsAtOnce>>) {
  expect(replies.badBody.status).toBe(400);
  expect(replies.badBody.body.code).toBe("validation_failed");
  expect(replies.badBody.body.errors.map((e) => e.path)).toContain("/body/body");
  expect(replies.badQuery.status).toBe(400);
  expect(replies.badQuery.body.errors.map((e) => e.path)).toContain("/query/limit");
  expect(replies.valid.status).toBe(200);
  expect(replies.valid.body.data).toEqual([]);
}

function appFor(overrides: Partial<Config>) {
  const config = { ...loadConfig({}), rateLimitPerSecond: 0, unauthenticatedPerSecond: 0, ...overrides };
  return { config, app: createApp({ db: database().db, log: createLogger("silent"), config, now: () => new Date() }) };
}

describe("the request validator, created once the server listens", () => {
  it("validates requests sent the moment the server listens, as a production start runs it", async () => {
    const { key } = await createKeyForAccount(database().db, "warm-up-production");
    const { app, config } = appFor({ nodeEnv: "production", validateResponses: false });
    const replies = await new Promise<Awaited<ReturnType<typeof requestsAtOnce>>>((resolve, reject) => {
      server = createHttpServer(app, config).listen(0, "127.0.0.1", () => {
        requestsAtOnce(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`, key).then(resolve, reject);
      });
    });
    expectValidated(replies);
  });

  it("is created by the first request when no server warms it up", async () => {
    const { key } = await createKeyForAccount(database().db, "warm-up-first-request");
    const { app } = appFor({ validateResponses: true });
    server = await new Promise<Server>((resolve) => {
      const plain = createServer(app).listen(0, "127.0.0.1", () => resolve(plain));
    });
    expectValidated(await requestsAtOnce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, key));
  });

  it("/readyz answers once the validator is ready, creating it if nothing did yet", async () => {
    const { key } = await createKeyForAccount(database().db, "warm-up-readyz");
    const { app } = appFor({ validateResponses: true });
    server = await new Promise<Server>((resolve) => {
      const plain = createServer(app).listen(0, "127.0.0.1", () => resolve(plain));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    expectValidated(await requestsAtOnce(baseUrl, key));
  });
});
