import { describe, expect, it } from "vitest";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

describe("numbers", () => {
  it("registers a number in E.164, gets, lists newest first and releases it", async () => {
    const a = await server().account();
    const first = await a.request("POST", "/api/v1/numbers", { phoneNumber: "+1 (415) 555-0190", name: "Support" });
    expect(first.status).toBe(201);
    const support = (await first.json()) as { numberId: string; phoneNumber: string; name: string | null };
    expect(support).toMatchObject({ phoneNumber: "+14155550190", name: "Support" });
    const { data: second } = await a.client.POST("/api/v1/numbers", { body: { phoneNumber: "+14155550191" } });
    expect(second!.name).toBeNull();

    const { data: got } = await a.client.GET("/api/v1/numbers/{numberId}", { params: { path: { numberId: support.numberId } } });
    expect(got).toEqual({ ...support, createdAt: got!.createdAt });
    const { data: page1 } = await a.client.GET("/api/v1/numbers", { params: { query: { limit: 1 } } });
    expect(page1!.data.map((n) => n.phoneNumber)).toEqual(["+14155550191"]);
    const { data: page2 } = await a.client.GET("/api/v1/numbers", { params: { query: { limit: 1, cursor: page1!.nextCursor! } } });
    expect(page2!.data.map((n) => n.phoneNumber)).toEqual(["+14155550190"]);
    expect(page2!.nextCursor).toBeNull();

    expect((await a.request("DELETE", `/api/v1/numbers/${support.numberId}`)).status).toBe(204);
    expect((await a.request("GET", `/api/v1/numbers/${support.numberId}`)).status).toBe(404);
    expect((await a.request("DELETE", `/api/v1/numbers/${support.numberId}`)).status).toBe(404);
  });

  it("a number is owned by one account in the whole service: 409 number_taken without naming the owner", async () => {
    const a = await server().account("number-owner-acme");
    const b = await server().account();
    expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550192" })).status).toBe(201);
    const taken = await b.request("POST", "/api/v1/numbers", { phoneNumber: "+1 415 555 0192" });
    expect(taken.status).toBe(409);
    const problem = await problemOf(taken);
    expect(problem.code).toBe("number_taken");
    expect(JSON.stringify(problem)).not.toContain("acme");
    expect(JSON.stringify(problem)).not.toContain(a.accountId);
    // Its own again: the same answer.
    expect((await problemOf(await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550192" }))).code).toBe("number_taken");
    const { data } = await b.client.GET("/api/v1/numbers");
    expect(data!.data).toEqual([]);
  });

  it("a released number can be registered by another account", async () => {
    const a = await server().account();
    const b = await server().account();
    const { data: n } = await a.client.POST("/api/v1/numbers", { body: { phoneNumber: "+14155550193" } });
    expect((await a.request("DELETE", `/api/v1/numbers/${n!.numberId}`)).status).toBe(204);
    expect((await b.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550193" })).status).toBe(201);
  });

  it("rejects a number that is not valid E.164 and unknown fields with 400", async () => {
    const a = await server().account();
    for (const phoneNumber of ["4155550194", "+1415", "+999123456789", "call me"]) {
      const res = await a.request("POST", "/api/v1/numbers", { phoneNumber });
      expect(res.status, phoneNumber).toBe(400);
      expect((await problemOf(res)).code).toBe("validation_failed");
    }
    const extra = await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550194", owner: "x" });
    expect((await problemOf(extra)).errors).toEqual([{ path: "/body/owner", message: "is not a known field" }]);
    expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550194", name: "" })).status).toBe(400);
  });
});
