// People who sign in (docs/USERS.md) through the API on a real server and database: invitations and their
// acceptance (passwords at least 12 characters, never a commonly breached one), sign-in with its cookie and CSRF
// token, roles judged as scopes (and x-roles), the last owner, lockouts, sign-out everywhere, operator users, and
// the audit of it all.
import { Secret, TOTP } from "otpauth";
import { beforeAll, describe, expect, it } from "vitest";
import { people, PASSWORD, uniqueEmail, type SignedInPerson } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});

const { post, userOf, signIn } = people(server, () => op);
const email = uniqueEmail;

describe("invitations", () => {
  it("the operator invites an account's first owner, shown once; the password must be long and not a breached one; the token works once", async () => {
    const a = await server().account();
    const address = email("Ada");
    const res = await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email: address, role: "owner" });
    expect(res.status).toBe(201);
    const invitation = (await res.json()) as Record<string, string>;
    expect(invitation).toMatchObject({
      email: address.toLowerCase(),
      role: "owner",
      inviteToken: expect.stringMatching(/^inv_[A-Za-z0-9_-]{32}$/),
      // No SMTP_URL here: not mailed, and the answer says so.
      mailed: false,
    });
    expect(invitation.inviteUrl).toBe(`http://localhost:${server().config.port}/dashboard/accept#token=${invitation.inviteToken}`);
    expect(Date.parse(invitation.expiresAt!) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    // Only a hash of the token is kept.
    const stored = await server().db("user_invitations").where({ user_id: invitation.userId }).first();
    expect(JSON.stringify(stored)).not.toContain(invitation.inviteToken!.slice(4));

    for (const password of ["short one", "123qweasdzxc", "QWERTY123456"]) {
      const weak = await post("/api/v1/users/accept", { token: invitation.inviteToken, password });
      expect(weak.status, password).toBe(422);
      expect((await problemOf(weak)).code).toBe("weak_password");
    }
    const accepted = await post("/api/v1/users/accept", { token: invitation.inviteToken, password: PASSWORD });
    expect(accepted.status).toBe(201);
    expect(await accepted.json()).toMatchObject({
      userId: invitation.userId,
      status: "active",
      accountId: a.accountId,
      role: "owner",
      twoFactor: false,
    });
    const again = await post("/api/v1/users/accept", { token: invitation.inviteToken, password: PASSWORD });
    expect(again.status).toBe(404);
    expect((await problemOf(again)).code).toBe("invitation_invalid");
    // The password is stored as argon2id, never as given.
    const user = await server().db("users").where({ id: invitation.userId }).first("password_hash");
    expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    // An email is one user in the whole service.
    const taken = await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, {
      email: address.toUpperCase(),
      role: "viewer",
    });
    expect(taken.status).toBe(409);
    expect((await problemOf(taken)).code).toBe("user_exists");
  });
});

describe("sessions", () => {
  it("sign-in sets an HttpOnly, SameSite=Strict cookie; a change needs the CSRF token; sign-out ends it", async () => {
    const a = await server().account();
    const who = email("grace");
    await userOf(a, who);
    const res = await post("/api/v1/session", { email: who.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(201);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^sms_session=ses_[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    const session = (await res.json()) as Record<string, string>;
    expect(session).toMatchObject({ email: who, accountId: a.accountId, role: "owner", csrfToken: expect.stringMatching(/^csrf_/) });
    expect(Date.parse(session.expiresAt!) - Date.now()).toBeGreaterThan(11.9 * 3_600_000);
    const b = await signIn(who);

    expect((await b.request("GET", "/api/v1/session")).status).toBe(200);
    expect((await b.request("GET", "/api/v1/messages")).status).toBe(200);
    const noCsrf = await b.request("POST", "/api/v1/users/invite", { email: email("x"), role: "viewer" }, { csrf: false });
    expect(noCsrf.status).toBe(403);
    expect((await problemOf(noCsrf)).code).toBe("csrf_failed");
    const wrongCsrf = await fetch(server().baseUrl + "/api/v1/messages", {
      method: "POST",
      headers: { Cookie: b.cookie, "X-CSRF-Token": `${b.csrf}x`, "Content-Type": "application/json" },
      body: JSON.stringify({ to: "+14155550123", from: "ACME", body: "hi" }),
    });
    expect((await problemOf(wrongCsrf)).code).toBe("csrf_failed");
    const sent = await b.request("POST", "/api/v1/messages", { to: "+14155550123", from: "ACME", body: "hi" });
    expect(sent.status, await sent.clone().text()).toBe(201);

    const list = (await (await b.request("GET", "/api/v1/sessions")).json()) as { data: { current: boolean }[] };
    expect(list.data.length).toBe(2);
    expect(list.data.filter((s) => s.current)).toHaveLength(1);
    const out = await b.request("DELETE", "/api/v1/session");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^sms_session=; Max-Age=0;/);
    expect((await b.request("GET", "/api/v1/session")).status).toBe(401);
    // The other session lives on until signed out everywhere.
    const c = await signIn(who);
    expect((await c.request("DELETE", "/api/v1/sessions")).status).toBe(204);
    expect((await c.request("GET", "/api/v1/session")).status).toBe(401);
    const other = await fetch(server().baseUrl + "/api/v1/session", { headers: { Cookie: setCookie.split(";")[0]! } });
    expect(other.status).toBe(401);
    // A key has no session.
    const keyed = await a.request("GET", "/api/v1/session");
    expect((await problemOf(keyed)).code).toBe("session_required");
  });

  it("an unknown email and a wrong password get the same answer after the same work", async () => {
    const a = await server().account();
    const who = email("lin");
    await userOf(a, who);
    const timed = async (address: string) => {
      const t = performance.now();
      const res = await post("/api/v1/session", { email: address, password: "not the password at all" });
      return { ms: performance.now() - t, res };
    };
    const unknown = await timed(email("nobody"));
    const wrong = await timed(who);
    expect(unknown.res.status).toBe(401);
    expect(wrong.res.status).toBe(401);
    const [u, w] = [(await unknown.res.json()) as Record<string, unknown>, (await wrong.res.json()) as Record<string, unknown>];
    expect({ ...u, instance: undefined }).toEqual({ ...w, instance: undefined });
    // Both verified a password with argon2id (tens of milliseconds): an unknown email is not answered at once.
    expect(unknown.ms).toBeGreaterThan(10);
    expect(wrong.ms).toBeGreaterThan(10);
  });

  it("ten failures in a row lock the user for 15 minutes (429), even with the right password; audited", async () => {
    const a = await server().account();
    const who = email("locked");
    const { userId } = await userOf(a, who);
    for (let i = 0; i < 10; i++) expect((await post("/api/v1/session", { email: who, password: `wrong password ${i}` })).status).toBe(401);
    const locked = await post("/api/v1/session", { email: who, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect((await problemOf(locked)).code).toBe("sign_in_locked");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(14 * 60);
    const audited = await server()
      .db("audit_events")
      .where({ account_id: a.accountId, action: "Sessions_create", key_id: `user:${userId}` })
      .pluck("status");
    expect(audited.filter((s) => s === 401)).toHaveLength(10);
    expect(audited).toContain(429);
    // The lock over, the right password signs in again (the lock moved back, as 15 minutes would).
    await server()
      .db("sign_in_locks")
      .where({ email: who })
      .update({ locked_until: server().db.raw("now() - interval '1 second'") });
    expect((await post("/api/v1/session", { email: who, password: PASSWORD })).status).toBe(201);
  });

  it("too many failures from one address slow that address down, whoever it tries", async () => {
    const a = await server().account();
    const who = email("neighbour");
    await userOf(a, who);
    // A client address that failed 30 times in this window (as one attacker trying many users would).
    await server()
      .db("sign_in_failures")
      .insert({ address: "192.0.2.7", failures: 30, window_start: server().db.raw("now()") });
    // This test's own address is another: it signs in.
    expect((await post("/api/v1/session", { email: who, password: PASSWORD })).status).toBe(201);
    await server().db("sign_in_failures").where({ address: "192.0.2.7" }).del();
    for (const address of ["127.0.0.1", "::ffff:127.0.0.1", "::1"])
      await server()
        .db("sign_in_failures")
        .insert({ address, failures: 30, window_start: server().db.raw("now()") })
        .onConflict("address")
        .merge();
    const slowed = await post("/api/v1/session", { email: who, password: PASSWORD });
    expect(slowed.status).toBe(429);
    expect((await problemOf(slowed)).code).toBe("sign_in_locked");
    await server().db("sign_in_failures").del();
  });
});

describe("roles", () => {
  it("a viewer reads and changes nothing; an admin manages users but not owners; the last owner stays", async () => {
    const a = await server().account();
    const ownerEmail = email("owner");
    const { userId: ownerId } = await userOf(a, ownerEmail);
    const owner = await signIn(ownerEmail);
    const invite = async (by: SignedInPerson, role: string) => {
      const who = email(role);
      const res = await by.request("POST", "/api/v1/users/invite", { email: who, role });
      return { res, who };
    };
    const { res: viewerInvite, who: viewerEmail } = await invite(owner, "viewer");
    expect(viewerInvite.status).toBe(201);
    const { inviteToken } = (await viewerInvite.json()) as { inviteToken: string };
    expect((await post("/api/v1/users/accept", { token: inviteToken, password: PASSWORD })).status).toBe(201);
    const viewer = await signIn(viewerEmail);
    expect((await viewer.request("GET", "/api/v1/messages")).status).toBe(200);
    expect((await viewer.request("GET", "/api/v1/users")).status).toBe(200);
    const send = await viewer.request("POST", "/api/v1/messages", { to: "+14155550123", from: "ACME", body: "hi" });
    expect(send.status).toBe(403);
    expect((await problemOf(send)).code).toBe("insufficient_scope");
    const viewerInvites = await viewer.request("POST", "/api/v1/users/invite", { email: email("y"), role: "viewer" });
    expect((await problemOf(viewerInvites)).code).toBe("insufficient_role");

    const adminEmail = email("admin");
    await userOf(a, adminEmail, "admin");
    const admin = await signIn(adminEmail);
    const adminMakesOwner = (await invite(admin, "owner")).res;
    expect(adminMakesOwner.status).toBe(403);
    expect((await problemOf(adminMakesOwner)).code).toBe("insufficient_role");
    expect((await invite(admin, "developer")).res.status).toBe(201);
    const demoteOwner = await admin.request("PATCH", `/api/v1/users/${ownerId}`, { role: "viewer" });
    expect((await problemOf(demoteOwner)).code).toBe("insufficient_role");

    // The last owner can neither step down nor be removed.
    const stepDown = await owner.request("PATCH", `/api/v1/users/${ownerId}`, { role: "admin" });
    expect(stepDown.status).toBe(409);
    expect((await problemOf(stepDown)).code).toBe("last_owner");
    expect((await problemOf(await owner.request("DELETE", `/api/v1/users/${ownerId}`))).code).toBe("last_owner");
    const users = (await (await owner.request("GET", "/api/v1/users")).json()) as {
      data: { userId: string; email: string; role: string }[];
    };
    const viewerId = users.data.find((u) => u.email === viewerEmail)!.userId;
    expect((await owner.request("PATCH", `/api/v1/users/${viewerId}`, { role: "developer" })).status).toBe(200);
    expect((await owner.request("DELETE", `/api/v1/users/${viewerId}`)).status).toBe(204);
    // Removed, its session ends with it.
    expect((await viewer.request("GET", "/api/v1/session")).status).toBe(401);
    // Another account's user is not found here.
    const b = await server().account();
    const stranger = await userOf(b, email("stranger"));
    expect((await owner.request("DELETE", `/api/v1/users/${stranger.userId}`)).status).toBe(404);
    // Every change is audited with the person.
    const audited = await server()
      .db("audit_events")
      .where({ account_id: a.accountId })
      .whereIn("action", ["Users_invite", "Users_update", "Users_delete"]);
    expect(audited.some((e) => e.key_id === `user:${ownerId}` && e.action === "Users_delete" && e.resource_id === viewerId)).toBe(true);
  });

  it("an operator user signs in to the operator API only", async () => {
    const who = email("ops");
    await userOf(null, who);
    const ops = await signIn(who);
    expect((await ops.request("GET", "/api/v1/accounts")).status).toBe(200);
    const accountPath = await ops.request("GET", "/api/v1/messages");
    expect(accountPath.status).toBe(403);
    expect((await problemOf(accountPath)).code).toBe("wrong_key_kind");
    const listed = (await (await op.request("GET", "/api/v1/operator-users")).json()) as { data: { email: string; role: string }[] };
    expect(listed.data.find((u) => u.email === who)?.role).toBe("operator");
  });

  it("an operator user removed: their sessions end, they are no longer listed, and only operator users' ids are taken", async () => {
    const who = email("ops-leaver");
    const { userId } = await userOf(null, who);
    const ops = await signIn(who);
    expect((await ops.request("GET", "/api/v1/accounts")).status).toBe(200);
    // An account's user is not an operator user: 404, and they stay.
    const a = await server().account();
    const memberEmail = email("not-ops");
    const member = await userOf(a, memberEmail);
    expect((await op.request("DELETE", `/api/v1/operator-users/${member.userId}`)).status).toBe(404);
    await signIn(memberEmail);

    expect((await op.request("DELETE", `/api/v1/operator-users/${userId}`)).status).toBe(204);
    expect((await ops.request("GET", "/api/v1/accounts")).status).toBe(401);
    const listed = (await (await op.request("GET", "/api/v1/operator-users")).json()) as { data: { email: string }[] };
    expect(listed.data.map((u) => u.email)).not.toContain(who);
    expect((await op.request("DELETE", `/api/v1/operator-users/${userId}`)).status).toBe(404);
    expect((await post("/api/v1/session", { email: who, password: PASSWORD })).status).toBe(401);
  });
});

describe("two-factor sign-in", () => {
  /** The app's code for `secret` at `at` (RFC 6238 through otpauth, as an authenticator app computes it). */
  const codeOf = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

  it("the operator requires it of operator users: one without it may only turn it on, none turns it off; a user requires it only with it on", async () => {
    const withoutEmail = email("ops-no-2fa");
    await userOf(null, withoutEmail);
    const without = await signIn(withoutEmail);
    const withEmail = email("ops-2fa");
    await userOf(null, withEmail);
    const keen = await signIn(withEmail);
    const setRequired = (by: { request: SignedInPerson["request"] } | TestOperator, required: boolean) =>
      by.request("PUT", "/api/v1/operator-users/two-factor-requirement", { required });
    try {
      // An operator user without a second factor cannot require it (it would lock them out).
      const refused = await setRequired(without, true);
      expect(refused.status).toBe(409);
      expect((await problemOf(refused)).code).toBe("two_factor_off");
      // One with it can; so can an operator key.
      const { secret } = (await (await keen.request("POST", "/api/v1/users/me/two-factor")).json()) as { secret: string };
      expect((await keen.request("POST", "/api/v1/users/me/two-factor/confirm", { code: codeOf(secret) })).status).toBe(200);
      expect((await setRequired(keen, true)).status).toBe(200);
      expect(((await (await op.request("GET", "/api/v1/operator-users")).json()) as { twoFactorRequired: boolean }).twoFactorRequired).toBe(
        true,
      );
      // The one without it may now only turn it on; its session says so.
      const blocked = await without.request("GET", "/api/v1/accounts");
      expect(blocked.status).toBe(403);
      expect((await problemOf(blocked)).code).toBe("two_factor_required");
      expect(((await (await without.request("GET", "/api/v1/session")).json()) as { twoFactorRequired: boolean }).twoFactorRequired).toBe(
        true,
      );
      expect((await without.request("POST", "/api/v1/users/me/two-factor")).status).toBe(201);
      // Nobody turns it off while it is required.
      const off = await keen.request("POST", "/api/v1/users/me/two-factor/disable", { code: codeOf(secret, Date.now() + 30_000) });
      expect((await problemOf(off)).code).toBe("two_factor_required");
      expect((await keen.request("GET", "/api/v1/accounts")).status).toBe(200);
      // An account's users are not concerned.
      const a = await server().account();
      const member = email("member-2fa");
      await userOf(a, member);
      expect((await (await signIn(member)).request("GET", "/api/v1/messages")).status).toBe(200);
    } finally {
      expect((await setRequired(op, false)).status).toBe(200);
    }
    expect((await without.request("GET", "/api/v1/accounts")).status).toBe(200);
  });

  it("is begun, confirmed with a code (recovery codes shown once), then asked at sign-in; a code is taken once; a recovery code works once; it is turned off", async () => {
    const a = await server().account();
    const who = email("totp");
    const { userId } = await userOf(a, who);
    const b = await signIn(who);
    const begun = await b.request("POST", "/api/v1/users/me/two-factor");
    expect(begun.status).toBe(201);
    const { secret, otpauthUrl } = (await begun.json()) as { secret: string; otpauthUrl: string };
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    // Not on until confirmed: sign-in still takes the password alone.
    expect((await post("/api/v1/session", { email: who, password: PASSWORD })).status).toBe(201);
    const wrong = await b.request("POST", "/api/v1/users/me/two-factor/confirm", {
      code: "000000" === codeOf(secret) ? "111111" : "000000",
    });
    expect((await problemOf(wrong)).code).toBe("invalid_code");
    const confirmed = await b.request("POST", "/api/v1/users/me/two-factor/confirm", { code: codeOf(secret) });
    expect(confirmed.status).toBe(200);
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const stored = await server().db("users").where({ id: userId }).first("recovery_codes", "totp_enabled");
    expect(stored.totp_enabled).toBe(true);
    expect(JSON.stringify(stored.recovery_codes)).not.toContain(recoveryCodes[0]!);
    expect((await b.request("POST", "/api/v1/users/me/two-factor")).status).toBe(409);

    // Now the password alone is not enough.
    const withoutCode = await post("/api/v1/session", { email: who, password: PASSWORD });
    expect(withoutCode.status).toBe(401);
    expect((await problemOf(withoutCode)).code).toBe("totp_required");
    // The code of the next step (the confirmation took this one): accepted once, then never again.
    const next = codeOf(secret, Date.now() + 30_000);
    expect((await post("/api/v1/session", { email: who, password: PASSWORD, totp: next })).status).toBe(201);
    const replay = await post("/api/v1/session", { email: who, password: PASSWORD, totp: next });
    expect((await problemOf(replay)).code).toBe("totp_required");
    // A recovery code, once.
    expect((await post("/api/v1/session", { email: who, password: PASSWORD, recoveryCode: recoveryCodes[0]!.toUpperCase() })).status).toBe(
      201,
    );
    expect((await problemOf(await post("/api/v1/session", { email: who, password: PASSWORD, recoveryCode: recoveryCodes[0] }))).code).toBe(
      "totp_required",
    );
    // Off with a recovery code; the password alone signs in again. Every change is audited.
    expect((await b.request("POST", "/api/v1/users/me/two-factor/disable", { code: recoveryCodes[1] })).status).toBe(204);
    expect((await post("/api/v1/session", { email: who, password: PASSWORD })).status).toBe(201);
    const actions = await server()
      .db("audit_events")
      .where({ key_id: `user:${userId}` })
      .pluck("action");
    expect(actions).toEqual(expect.arrayContaining(["TwoFactor_begin", "TwoFactor_confirm", "TwoFactor_disable"]));
    // A key has no user to turn it on for.
    expect((await problemOf(await a.request("POST", "/api/v1/users/me/two-factor"))).code).toBe("session_required");
  });
});
