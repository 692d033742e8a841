import { describe, expect, it } from "vitest";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe("webhooks", () => {
  it("registers a webhook and shows its secret only on create and via /secret", async () => {
    const a = await server().account();
    const { data: created, response } = await a.client.POST("/api/v1/webhooks", {
      body: { name: "receipts", url: "http://127.0.0.1:9/dlr" },
    });
    expect(response.status).toBe(201);
    expect(created!.secret).toMatch(SECRET);
    expect(Buffer.from(created!.secret.slice(6), "base64")).toHaveLength(32);

    const { data: list } = await a.client.GET("/api/v1/webhooks");
    expect(list!.data).toEqual([
      {
        webhookId: created!.webhookId,
        name: "receipts",
        url: "http://127.0.0.1:9/dlr",
        events: ["dlr.sent", "dlr.delivered", "dlr.failed", "dlr.undelivered"],
        createdAt: created!.createdAt,
        disabledAt: null,
        disabledReason: null,
        batch: null,
      },
    ]);
    const path = { params: { path: { webhookId: created!.webhookId } } };
    const { data: one } = await a.client.GET("/api/v1/webhooks/{webhookId}", path);
    expect(one).not.toHaveProperty("secret");
    const { data: secret } = await a.client.GET("/api/v1/webhooks/{webhookId}/secret", path);
    expect(secret).toEqual({ secret: created!.secret });
  });

  it("rotates the secret and keeps the old one for 24 hours", async () => {
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/webhooks", { body: { name: "r", url: "http://127.0.0.1:9/dlr" } });
    const path = { params: { path: { webhookId: created!.webhookId } } };
    const { data: rotated } = await a.client.POST("/api/v1/webhooks/{webhookId}/secret/rotate", path);
    expect(rotated!.secret).toMatch(SECRET);
    expect(rotated!.secret).not.toBe(created!.secret);
    expect((await a.client.GET("/api/v1/webhooks/{webhookId}/secret", path)).data!.secret).toBe(rotated!.secret);
    const row = await server().db("webhooks").where({ id: created!.webhookId }).first();
    expect(row.previous_secret).toBe(created!.secret);
    const graceMs = row.previous_secret_expires_at.getTime() - Date.now();
    expect(graceMs).toBeGreaterThan(23.9 * 3600_000);
    expect(graceMs).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("deletes a webhook", async () => {
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/webhooks", { body: { name: "gone", url: "http://127.0.0.1:9/dlr" } });
    expect((await a.request("DELETE", `/api/v1/webhooks/${created!.webhookId}`)).status).toBe(204);
    expect((await a.request("GET", `/api/v1/webhooks/${created!.webhookId}`)).status).toBe(404);
  });

  it("validates name and url", async () => {
    const a = await server().account();
    for (const body of [{ name: "", url: "http://127.0.0.1/x" }, { name: "x", url: "not a url" }, { name: "x" }]) {
      const res = await a.request("POST", "/api/v1/webhooks", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problemOf(res)).code).toBe("validation_failed");
    }
  });
});

describe("webhook URL policy without WEBHOOK_ALLOW_PRIVATE", () => {
  const strict = useTestServer({ webhookAllowPrivate: false });

  it.each([
    ["http:// is not https", "http://example.com/dlr"],
    ["loopback", "https://127.0.0.1/dlr"],
    ["private 10/8", "https://10.0.0.1/dlr"],
    ["IPv6 loopback", "https://[::1]/dlr"],
    ["metadata address", "https://169.254.169.254/latest"],
    ["IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/dlr"],
    ["a name that resolves to loopback", "https://localhost/dlr"],
  ])("rejects %s", async (_why, url) => {
    const a = await strict().account();
    const res = await a.request("POST", "/api/v1/webhooks", { name: "x", url });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).errors?.[0]?.path).toBe("/body/url");
  });

  it("accepts https to a public address", async () => {
    const a = await strict().account();
    const res = await a.request("POST", "/api/v1/webhooks", { name: "x", url: "https://93.184.215.14/dlr" });
    expect(res.status).toBe(201);
  });
});
