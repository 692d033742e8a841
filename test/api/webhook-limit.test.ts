import { describe, expect, it } from "vitest";
import { problemOf, useTestServer } from "../helpers/server.js";

// The default MAX_WEBHOOKS_PER_ACCOUNT (10): the test server does not override it.
const server = useTestServer();
const register = (a: Awaited<ReturnType<ReturnType<typeof server>["account"]>>, i: number) =>
  a.request("POST", "/api/v1/webhooks", { name: `hook ${i}`, url: `http://127.0.0.1:9/dlr/${i}` });

describe("webhooks per account", () => {
  it("refuses the 11th webhook with 422 webhook_limit_reached; deleting one makes room; other accounts are unaffected", async () => {
    expect(server().config.maxWebhooksPerAccount).toBe(10);
    const a = await server().account();
    const b = await server().account();
    const ids: string[] = [];
    for (let i = 1; i <= 10; i++) {
      const res = await register(a, i);
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { webhookId: string }).webhookId);
    }
    const refused = await register(a, 11);
    expect(refused.status).toBe(422);
    const problem = await problemOf(refused);
    expect(problem.code).toBe("webhook_limit_reached");
    expect(problem.detail).toContain("10 webhooks");
    expect(((await (await a.request("GET", "/api/v1/webhooks")).json()) as { data: unknown[] }).data).toHaveLength(10);

    expect((await register(b, 1)).status).toBe(201);

    expect((await a.request("DELETE", `/api/v1/webhooks/${ids[0]}`)).status).toBe(204);
    expect((await register(a, 12)).status).toBe(201);
    expect((await register(a, 13)).status).toBe(422);
  });

  it("holds under concurrent registrations: 20 at once store exactly 10", async () => {
    const a = await server().account();
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => register(a, i).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(10);
    const { count } = (await server().db("webhooks").where({ account_id: a.accountId }).count({ count: "*" }).first()) as { count: string };
    expect(Number(count)).toBe(10);
  });
});

describe("recipients per campaign request", () => {
  it("refuses 10,001 recipients with a 400 naming the limit, and stores nothing", async () => {
    const a = await server().account();
    const recipients = Array.from({ length: 10_001 }, (_, i) => `+1415${String(2_000_000 + i).padStart(7, "0")}`);
    const res = await a.request("POST", "/api/v1/campaigns", { name: "too many", message: "hi", type: "instant", recipients });
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.code).toBe("validation_failed");
    expect(problem.errors).toEqual([{ path: "/body/recipients", message: "must NOT have more than 10000 items" }]);
    expect(await server().db("campaigns").where({ account_id: a.accountId }).first()).toBeUndefined();
  });
});
