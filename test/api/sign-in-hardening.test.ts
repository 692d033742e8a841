// Sign-in hardening (docs/USERS.md; CONTRACT.md "Changed (turn 5)"): the lockout counts an attempt before the
// password is verified (concurrent guesses included), unknown addresses are locked out as users are, wrong codes
// when turning two-factor sign-in off count as failures, an invitation tells nothing about another account's
// users (and holds no address against another account), an invitation's token is looked up before a password
// is judged, passwords are judged by zxcvbn, and names and addresses are compared folded.
import { Secret, TOTP } from "otpauth";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
// Every test starts with this address's failures forgotten (30 slow the address down, whoever it tries).
beforeEach(async () => {
  await server().db("sign_in_failures").del();
});
const { post, userOf, signIn } = people(server, () => op);
const codeOf = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

async function invitationOf(res: Response): Promise<{ inviteToken: string; userId: string; email: string }> {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { inviteToken: string; userId: string; email: string };
}

describe("the sign-in lockout (16, 17)", () => {
  it("counts an attempt before its password is verified: of 30 concurrent wrong guesses at most 10 are verified, then the right password is 429", async () => {
    const a = await server().account();
    const who = uniqueEmail("burst");
    const { userId } = await userOf(a, who);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post("/api/v1/session", { email: who, password: `wrong password number ${i}` })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20);
    // Each verified guess is audited as a 401: never more than ten.
    const audited = await server()
      .db("audit_events")
      .where({ action: "Sessions_create", key_id: `user:${userId}`, status: 401 })
      .count<{ count: string }[]>("* as count");
    expect(Number(audited[0]!.count)).toBeLessThanOrEqual(10);
    const locked = await post("/api/v1/session", { email: who, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect((await problemOf(locked)).code).toBe("sign_in_locked");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(14 * 60);
  });

  it("locks an unknown address exactly as a user's: ten failures, then 429 with the same answer", async () => {
    const a = await server().account();
    const known = uniqueEmail("known");
    await userOf(a, known);
    const unknown = uniqueEmail("nobody");
    const tenFailures = async (email: string) => {
      for (let i = 0; i < 10; i++) expect((await post("/api/v1/session", { email, password: `wrong password ${i}` })).status).toBe(401);
      return post("/api/v1/session", { email, password: PASSWORD });
    };
    const knownLocked = await tenFailures(known);
    await server().db("sign_in_failures").del();
    const unknownLocked = await tenFailures(unknown);
    expect(knownLocked.status).toBe(429);
    expect(unknownLocked.status).toBe(429);
    const [k, u] = [await problemOf(knownLocked), await problemOf(unknownLocked)];
    expect({ ...u, instance: undefined, detail: undefined }).toEqual({ ...k, instance: undefined, detail: undefined });
    expect(u.code).toBe("sign_in_locked");
  });

  it("a right password that needs its second factor is not a failure; a sign-in forgets the attempts", async () => {
    const a = await server().account();
    const who = uniqueEmail("pending");
    await userOf(a, who);
    const person = await signIn(who);
    const { secret } = (await (await person.request("POST", "/api/v1/users/me/two-factor")).json()) as { secret: string };
    expect((await person.request("POST", "/api/v1/users/me/two-factor/confirm", { code: codeOf(secret) })).status).toBe(200);
    for (let i = 0; i < 12; i++)
      expect((await problemOf(await post("/api/v1/session", { email: who, password: PASSWORD }))).code).toBe("totp_required");
    expect((await post("/api/v1/session", { email: who, password: PASSWORD, totp: codeOf(secret, Date.now() + 30_000) })).status).toBe(201);
    expect(await server().db("sign_in_locks").where({ email: who }).first()).toBeUndefined();
  });
});

describe("turning two-factor sign-in off (24)", () => {
  it("counts wrong codes as sign-in failures: the eleventh try is 429, and so is signing in", async () => {
    const a = await server().account();
    const who = uniqueEmail("guesser");
    await userOf(a, who);
    const person = await signIn(who);
    const { secret } = (await (await person.request("POST", "/api/v1/users/me/two-factor")).json()) as { secret: string };
    expect((await person.request("POST", "/api/v1/users/me/two-factor/confirm", { code: codeOf(secret) })).status).toBe(200);
    // Never a current code nor a recovery code: not six digits, not one of the codes shown.
    for (let i = 0; i < 10; i++) {
      const wrong = await person.request("POST", "/api/v1/users/me/two-factor/disable", { code: `not-a-code-${i}` });
      expect((await problemOf(wrong)).code).toBe("invalid_code");
    }
    const locked = await person.request("POST", "/api/v1/users/me/two-factor/disable", { code: `not-a-code-again` });
    expect(locked.status).toBe(429);
    expect((await problemOf(locked)).code).toBe("sign_in_locked");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(14 * 60);
    const signInLocked = await post("/api/v1/session", { email: who, password: PASSWORD, totp: codeOf(secret, Date.now() + 30_000) });
    expect(signInLocked.status).toBe(429);
    // Still on.
    expect((await server().db("users").where({ email: who }).first("totp_enabled")).totp_enabled).toBe(true);
  });
});

describe("invitations never tell about another account's users (17)", () => {
  it("another account's user, or another account's invitation, is invited as anyone is; acceptance resolves", async () => {
    const a = await server().account();
    const b = await server().account();
    const ownerOfA = uniqueEmail("owner-a");
    await userOf(a, ownerOfA);
    const ownerOfB = uniqueEmail("owner-b");
    await userOf(b, ownerOfB);
    const bOwner = await signIn(ownerOfB);
    // Another account's active user: 201, as for an address nobody has.
    const cross = await invitationOf(
      await bOwner.request("POST", "/api/v1/users/invite", { email: ownerOfA.toUpperCase(), role: "viewer" }),
    );
    const nobody = await invitationOf(await bOwner.request("POST", "/api/v1/users/invite", { email: uniqueEmail("new"), role: "viewer" }));
    expect(Object.keys(cross).sort()).toEqual(Object.keys(nobody).sort());
    // The operator too, for a third account.
    const c = await server().account();
    await invitationOf(await op.request("POST", `/api/v1/accounts/${c.accountId}/users/invite`, { email: ownerOfA, role: "owner" }));
    // The same account's user: the inviter sees its users anyway.
    const again = await bOwner.request("POST", "/api/v1/users/invite", { email: ownerOfB, role: "viewer" });
    expect(again.status).toBe(409);
    expect((await problemOf(again)).code).toBe("user_exists");
    // Accepting is where it resolves: an address is one active user in the service.
    const accepted = await post("/api/v1/users/accept", { token: cross.inviteToken, password: PASSWORD });
    expect(accepted.status).toBe(409);
    expect((await problemOf(accepted)).code).toBe("user_exists");
    // The address still signs in to its own account.
    expect((await signIn(ownerOfA)).session.accountId).toBe(a.accountId);
  });

  it("an address one account invited is no squat: the operator invites it for another, and it is accepted there", async () => {
    const a = await server().account();
    const b = await server().account();
    const squatterEmail = uniqueEmail("squatter");
    await userOf(a, squatterEmail);
    const squatter = await signIn(squatterEmail);
    const victim = uniqueEmail("victim");
    const squat = await invitationOf(await squatter.request("POST", "/api/v1/users/invite", { email: victim, role: "viewer" }));
    const real = await invitationOf(
      await op.request("POST", `/api/v1/accounts/${b.accountId}/users/invite`, { email: victim, role: "owner" }),
    );
    expect((await post("/api/v1/users/accept", { token: real.inviteToken, password: PASSWORD })).status).toBe(201);
    expect((await signIn(victim)).session.accountId).toBe(b.accountId);
    // The squatter's invitation cannot take the address now.
    const late = await post("/api/v1/users/accept", { token: squat.inviteToken, password: PASSWORD });
    expect((await problemOf(late)).code).toBe("user_exists");
    expect((await signIn(victim)).session.accountId).toBe(b.accountId);
  });
});

describe("accepting an invitation (18, 22)", () => {
  it("looks the token up before judging or hashing a password: an unknown token is 404 whatever the password", async () => {
    for (const password of ["short", "aaaaaaaaaaaa", PASSWORD]) {
      const res = await post("/api/v1/users/accept", { token: "inv_unknownunknownunknownunknownunk", password });
      expect(res.status, password).toBe(404);
      expect((await problemOf(res)).code).toBe("invitation_invalid");
    }
  });

  it("refuses passwords zxcvbn scores under 3, saying why", async () => {
    const a = await server().account();
    const { inviteToken } = await invitationOf(
      await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email: uniqueEmail("weak"), role: "owner" }),
    );
    for (const password of ["            ", "aaaaaaaaaaaa", "qwertyuiopas", "iloveyou1234"]) {
      const res = await post("/api/v1/users/accept", { token: inviteToken, password });
      expect(res.status, JSON.stringify(password)).toBe(422);
      const problem = await problemOf(res);
      expect(problem.code).toBe("weak_password");
      expect(problem.detail).toMatch(/too easy to guess \(strength [0-2] of 4, at least 3 needed/);
      expect(problem.errors?.[0]?.path).toBe("/body/password");
    }
    expect((await post("/api/v1/users/accept", { token: inviteToken, password: PASSWORD })).status).toBe(201);
  });
});

describe("look-alike names and addresses (21)", () => {
  it("refuses addresses with format or bidi characters; folds width and case; account names unique folded", async () => {
    const a = await server().account();
    for (const email of ["\u202ex@x.test", "ad\u200ba@alpha.test", "x\u2066@alpha.test"]) {
      const res = await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email, role: "owner" });
      expect(res.status, JSON.stringify(email)).toBe(400);
      expect((await problemOf(res)).errors?.[0]?.path).toBe("/body/email");
    }
    const plain = `x${Date.now()}@alpha.test`;
    const fullwidth = [...plain].map((ch) => (/[a-z0-9]/.test(ch) ? String.fromCodePoint(ch.codePointAt(0)! + 0xfee0) : ch)).join("");
    const invited = await invitationOf(
      await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email: fullwidth, role: "owner" }),
    );
    expect(invited.email).toBe(plain);
    const twice = await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email: plain.toUpperCase(), role: "owner" });
    expect((await problemOf(twice)).code).toBe("user_exists");
    expect((await post("/api/v1/users/accept", { token: invited.inviteToken, password: PASSWORD })).status).toBe(201);
    expect((await post("/api/v1/session", { email: fullwidth, password: PASSWORD })).status).toBe(201);

    const name = `alpha-${Date.now()}`;
    expect((await op.request("POST", "/api/v1/accounts", { name })).status).toBe(201);
    for (const lookalike of [`${name}\u200b`, `\u200d${name}`, `${name.slice(0, 2)}\u00ad${name.slice(2)}`]) {
      const res = await op.request("POST", "/api/v1/accounts", { name: lookalike });
      expect(res.status, JSON.stringify(lookalike)).toBe(409);
      expect((await problemOf(res)).code).toBe("account_exists");
    }
  });
});
