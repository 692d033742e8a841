// A person changes their own password (docs/USERS.md, "Passwords"): the current one proves it is them, a wrong
// one is 422 wrong_password and counts as a failed sign-in (ten lock the address), a weak new one is 422
// weak_password; the change ends every other session of theirs and keeps this one; the old password no longer
// signs in, the new one does; a key cannot change anyone's password. The change is audited.
import { beforeAll, describe, expect, it } from "vitest";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { post, userOf, signIn } = people(server, () => op);
const NEW_PASSWORD = "tangerine kettle orbit mosaic";

describe("changing one's password", () => {
  it("takes the current password and a strong new one; ends the other sessions, keeps this one", async () => {
    const a = await server().account();
    const email = uniqueEmail("change");
    await userOf(a, email, "developer");
    const here = await signIn(email);
    const elsewhere = await signIn(email);

    const wrong = await here.request("POST", "/api/v1/users/me/password", {
      currentPassword: "not it at all, sorry",
      newPassword: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(422);
    expect(await problemOf(wrong)).toMatchObject({ code: "wrong_password", errors: [{ path: "/body/currentPassword" }] });
    const weak = await here.request("POST", "/api/v1/users/me/password", { currentPassword: PASSWORD, newPassword: "password1234" });
    expect(weak.status).toBe(422);
    expect(await problemOf(weak)).toMatchObject({ code: "weak_password", errors: [{ path: "/body/newPassword" }] });
    // Nothing changed by either: both sessions still work, the old password still signs in.
    expect((await elsewhere.request("GET", "/api/v1/session")).status).toBe(200);

    const changed = await here.request("POST", "/api/v1/users/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.status, await changed.clone().text()).toBe(204);
    expect((await here.request("GET", "/api/v1/session")).status).toBe(200);
    expect((await elsewhere.request("GET", "/api/v1/session")).status).toBe(401);
    expect((await post("/api/v1/session", { email, password: PASSWORD })).status).toBe(401);
    await signIn(email, NEW_PASSWORD);

    // Audited once, the change (a refusal is counted as a failed sign-in instead, as above).
    const audit = (await (await op.request("GET", `/api/v1/audit-events?accountId=${a.accountId}`)).json()) as {
      data: { action: string; status: number }[];
    };
    expect(audit.data.filter((e) => e.action === "Passwords_change").map((e) => e.status)).toEqual([204]);
  });

  it("counts each wrong current password as a failed sign-in: ten lock the address (429 sign_in_locked)", async () => {
    const a = await server().account();
    const email = uniqueEmail("guess");
    await userOf(a, email, "viewer");
    const me = await signIn(email);
    for (let i = 0; i < 10; i++) {
      const res = await me.request("POST", "/api/v1/users/me/password", {
        currentPassword: `guess number ${i}`,
        newPassword: NEW_PASSWORD,
      });
      expect(res.status).toBe(422);
    }
    const locked = await me.request("POST", "/api/v1/users/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(locked.status).toBe(429);
    expect((await problemOf(locked)).code).toBe("sign_in_locked");
    expect(locked.headers.get("retry-after")).toMatch(/^[0-9]+$/);
  });

  it("is a person's own: a key gets 403 session_required, a request without the CSRF token 403 csrf_failed", async () => {
    const a = await server().account();
    const keyed = await a.request("POST", "/api/v1/users/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(keyed.status).toBe(403);
    expect((await problemOf(keyed)).code).toBe("session_required");
    const email = uniqueEmail("csrf");
    await userOf(a, email, "admin");
    const me = await signIn(email);
    const forged = await me.request(
      "POST",
      "/api/v1/users/me/password",
      { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    expect((await problemOf(forged)).code).toBe("csrf_failed");
  });
});
