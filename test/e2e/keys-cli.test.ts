import { describe, expect, it } from "vitest";
import { run } from "../helpers/process.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const keys = (args: string[]) => run("npm", ["run", "--silent", "keys", "--", ...args], { DATABASE_URL: server().url, LOG_LEVEL: "warn" });

describe("npm run keys", () => {
  it("creates a key printed alone as the last line, lists it, and revokes it", async () => {
    const created = await keys(["create", "--account", "acme"]);
    expect(created.code).toBe(0);
    const key = created.stdout.trimEnd().split("\n").at(-1)!;
    expect(key).toMatch(/^sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    const keyId = key.split("_")[1]!;

    const ok = await fetch(`${server().baseUrl}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);

    // A second key for the same account sees the same data.
    const second = (await keys(["create", "--account", "acme"])).stdout.trimEnd().split("\n").at(-1)!;
    await fetch(`${server().baseUrl}/api/v1/contacts/groups`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "shared" }),
    });
    const groups = (await (
      await fetch(`${server().baseUrl}/api/v1/contacts/groups/all`, { headers: { Authorization: `Bearer ${second}` } })
    ).json()) as { data: { name: string }[] };
    expect(groups.data.map((g: { name: string }) => g.name)).toEqual(["shared"]);

    const listed = await keys(["list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${keyId}\\tacme\\t\\S+\\tactive$`, "m"));
    expect(listed.stdout).not.toContain(key.split("_")[2]);

    const revoked = await keys(["revoke", keyId]);
    expect(revoked.code).toBe(0);
    expect((await keys(["list"])).stdout).toMatch(new RegExp(`^${keyId}\\tacme\\t\\S+\\trevoked `, "m"));
    const after = await fetch(`${server().baseUrl}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
    expect((await keys(["revoke", keyId])).code).toBe(1);
  });

  it("creates an operator key: listed as the operator's, refused on account paths", async () => {
    const created = await keys(["create", "--operator", "ops team"]);
    expect(created.code).toBe(0);
    const key = created.stdout.trimEnd().split("\n").at(-1)!;
    expect(key).toMatch(/^sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    const keyId = key.split("_")[1]!;
    expect((await keys(["list"])).stdout).toMatch(new RegExp(`^${keyId}\\toperator \\(ops team\\)\\t\\S+\\tactive$`, "m"));
    const res = await fetch(`${server().baseUrl}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("wrong_key_kind");
  });

  it("exits 2 with usage on bad arguments", async () => {
    const bad = [[], ["create"], ["create", "--operator"], ["create", "--account", "a", "--operator", "b"], ["frobnicate"], ["revoke"]];
    // Side by side: each is a process of its own that only parses its arguments.
    const results = await Promise.all(bad.map((args) => keys(args)));
    for (const [i, result] of results.entries()) {
      expect(result.code, bad[i]!.join(" ")).toBe(2);
      expect(result.stderr).toContain("usage:");
    }
  });
});
