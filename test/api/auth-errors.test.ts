import { describe, expect, it } from "vitest";
import { revokeApiKey } from "../../server/operator/index.js";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

async function expect401(headers: Record<string, string>) {
  const res = await fetch(`${server().baseUrl}/api/v1/messages`, { headers });
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  const problem = await problemOf(res);
  expect(problem).toMatchObject({
    status: 401,
    code: "unauthorized",
    type: "urn:sms-platform:problem:unauthorized",
    title: "Unauthorized",
  });
}

describe("authentication", () => {
  it("answers 401 with WWW-Authenticate for a missing, malformed, unknown or revoked key", async () => {
    const a = await server().account();
    await expect401({});
    await expect401({ Authorization: "Basic dXNlcjpwYXNz" });
    await expect401({ Authorization: "Bearer not-a-key" });
    // The last character changed for certain (replacing it with a fixed "X" left 1 key in 62 unchanged).
    const wrongKey = a.key.slice(0, -1) + (a.key.endsWith("X") ? "Y" : "X");
    expect(wrongKey).not.toBe(a.key);
    await expect401({ Authorization: `Bearer ${wrongKey}` });
    await expect401({ Authorization: `Bearer sms_AAAAAAAAAAAA_${"b".repeat(32)}` });
    expect((await a.request("GET", "/api/v1/messages")).status).toBe(200);
    await revokeApiKey(server().db, a.keyId);
    await expect401({ Authorization: `Bearer ${a.key}` });
  });

  it("stores only a hash of the secret", async () => {
    const a = await server().account();
    const row = await server().db("api_keys").where({ key_id: a.keyId }).first();
    const secret = a.key.split("_")[2]!;
    expect(a.key).toMatch(/^sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.secret_hash).toHaveLength(32);
  });

  it("checks the key before the body, so an anonymous caller learns nothing", async () => {
    const res = await fetch(`${server().baseUrl}/api/v1/scheduler/schedule`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{bad",
    });
    expect(res.status).toBe(401);
  });
});

describe("problem documents for bad requests", () => {
  it("400 for malformed JSON, a wrong type, and a non-object body", async () => {
    const a = await server().account();
    for (const body of ["{not json", '{"name": 5}', "[]", '"text"', "null"]) {
      const res = await a.request("POST", "/api/v1/contacts/groups", body);
      expect(res.status, body).toBe(400);
      expect((await problemOf(res)).code).toBe("validation_failed");
    }
  });

  it("413 payload_too_large for a body over 1 MiB", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/contacts/groups", JSON.stringify({ name: "x", description: "y".repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect((await problemOf(res)).code).toBe("payload_too_large");
  });

  it("415 unsupported_media_type for a body that is not application/json", async () => {
    const a = await server().account();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await a.request("POST", "/api/v1/contacts/groups", "name=x", { "Content-Type": type });
      expect(res.status, type).toBe(415);
      expect((await problemOf(res)).code).toBe("unsupported_media_type");
    }
    // A JSON body under another media type is not read as JSON either (it was: 201).
    for (const type of [
      "text/plain",
      "text/plain; charset=utf-8",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
    ]) {
      const res = await a.request("POST", "/api/v1/contacts/groups", JSON.stringify({ name: `g ${type}` }), { "Content-Type": type });
      expect(res.status, type).toBe(415);
      expect((await problemOf(res)).code).toBe("unsupported_media_type");
    }
    expect((await a.client.GET("/api/v1/contacts/groups/all")).data!.data).toEqual([]);
    const missing = await fetch(`${server().baseUrl}/api/v1/contacts/groups`, {
      method: "POST",
      headers: { Authorization: `Bearer ${a.key}` },
      body: new Uint8Array(Buffer.from('{"name":"x"}')),
    });
    expect(missing.status).toBe(415);
  });

  it("404 for an unknown path and 405 for a wrong method, as problems", async () => {
    const a = await server().account();
    const unknown = await a.request("GET", "/api/v1/nothing-here");
    expect(unknown.status).toBe(404);
    expect((await problemOf(unknown)).code).toBe("not_found");
    const outside = await fetch(`${server().baseUrl}/favicon.ico`);
    expect(outside.status).toBe(404);
    expect((await problemOf(outside)).code).toBe("not_found");
    const wrong = await a.request("PUT", "/api/v1/contacts/groups/all", {});
    expect(wrong.status).toBe(405);
    expect((await problemOf(wrong)).code).toBe("method_not_allowed");
  });

  it("sets security headers and echoes a request id", async () => {
    const res = await fetch(`${server().baseUrl}/healthz`, { headers: { "X-Request-Id": "trace-123" } });
    expect(res.headers.get("x-request-id")).toBe("trace-123");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-powered-by")).toBeNull();
    const generated = await fetch(`${server().baseUrl}/healthz`, { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("text PostgreSQL cannot store", () => {
  it("answers 400 naming the field, never 500, for a NUL character", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/contacts/groups", { name: "a\u0000b", description: "x" });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).errors).toEqual([{ path: "/body/name", message: "must not contain the NUL character (\\u0000)" }]);
    const q = await a.request("GET", "/api/v1/contacts?cursor=%00");
    expect(q.status).toBe(400);
  });
});
