// What an account decides about its people (docs/USERS.md): an owner requiring two-factor sign-in of everyone
// (a user without it may then only turn it on), invitations mailed through SMTP_URL (to a real SMTP server on
// 127.0.0.1), and the first start's one-time owner link, whose address is given on accepting it.
import { Secret, TOTP } from "otpauth";
import { beforeAll, describe, expect, it } from "vitest";
import { inviteFirstStartOwner } from "../../server/operator/index.js";
import { useMailServer } from "../helpers/mailServer.js";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";

// The mail server the service sends to, started before the API server, which reads its port.
const mailServer = useMailServer();
const { mails } = mailServer;

const server = useTestServer({
  get smtpUrl() {
    return mailServer.url;
  },
  smtpFrom: "Invitations <invite@example.com>",
});
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { post, userOf, signIn } = people(server, () => op);

const codeOf = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

/** Turns two-factor sign-in on for the signed-in person; the secret, to make codes with. */
async function turnOnTwoFactor(person: Awaited<ReturnType<typeof signIn>>): Promise<string> {
  const begun = await person.request("POST", "/api/v1/users/me/two-factor");
  expect(begun.status, await begun.clone().text()).toBe(201);
  const { secret } = (await begun.json()) as { secret: string };
  const confirmed = await person.request("POST", "/api/v1/users/me/two-factor/confirm", { code: codeOf(secret) });
  expect(confirmed.status, await confirmed.clone().text()).toBe(200);
  return secret;
}

describe("an account that requires two-factor sign-in", () => {
  it("only an owner with two-factor sign-in on requires it; a user without it may then only turn it on", async () => {
    const a = await server().account();
    const ownerEmail = uniqueEmail("owner");
    const devEmail = uniqueEmail("dev");
    const adminEmail = uniqueEmail("admin");
    await userOf(a, ownerEmail, "owner");
    await userOf(a, devEmail, "developer");
    await userOf(a, adminEmail, "admin");
    const owner = await signIn(ownerEmail);
    expect(owner.session).toMatchObject({ twoFactor: false, twoFactorRequired: false });

    // The owner without a second factor of its own would lock itself out: refused.
    const early = await owner.request("PUT", "/api/v1/users/two-factor-requirement", { required: true });
    expect(early.status).toBe(409);
    expect((await problemOf(early)).code).toBe("two_factor_off");
    // An admin may not decide it; a key has no person to decide.
    const admin = await signIn(adminEmail);
    const byAdmin = await admin.request("PUT", "/api/v1/users/two-factor-requirement", { required: true });
    expect((await problemOf(byAdmin)).code).toBe("insufficient_role");
    const byKey = await a.request("PUT", "/api/v1/users/two-factor-requirement", { required: true });
    expect((await problemOf(byKey)).code).toBe("session_required");

    await turnOnTwoFactor(owner);
    const on = await owner.request("PUT", "/api/v1/users/two-factor-requirement", { required: true });
    expect(on.status, await on.clone().text()).toBe(200);
    expect(await on.json()).toEqual({ required: true });
    const listed = (await (await a.request("GET", "/api/v1/users")).json()) as { twoFactorRequired: boolean };
    expect(listed.twoFactorRequired).toBe(true);

    // The developer signs in, and may do nothing but its own sign-in's business until it turns the factor on.
    const dev = await signIn(devEmail);
    expect(dev.session).toMatchObject({ twoFactor: false, twoFactorRequired: true });
    const blocked = await dev.request("GET", "/api/v1/messages");
    expect(blocked.status).toBe(403);
    expect((await problemOf(blocked)).code).toBe("two_factor_required");
    expect((await dev.request("GET", "/api/v1/session")).status).toBe(200);
    expect((await dev.request("GET", "/api/v1/sessions")).status).toBe(200);
    const secret = await turnOnTwoFactor(dev);
    expect((await dev.request("GET", "/api/v1/messages")).status).toBe(200);
    expect(await (await dev.request("GET", "/api/v1/session")).json()).toMatchObject({ twoFactor: true, twoFactorRequired: true });
    // While it is required, turning it off is refused (it would lock the user out again at once).
    const off = await dev.request("POST", "/api/v1/users/me/two-factor/disable", { code: codeOf(secret, Date.now() + 30_000) });
    expect(off.status).toBe(403);
    expect((await problemOf(off)).code).toBe("two_factor_required");

    // A key of the account is a program: the requirement is about people.
    expect((await a.request("GET", "/api/v1/messages")).status).toBe(200);
    const stopped = await owner.request("PUT", "/api/v1/users/two-factor-requirement", { required: false });
    expect(await stopped.json()).toEqual({ required: false });
    // Audited, with the person.
    const events = await server().db("audit_events").where({ action: "Users_setTwoFactorRequirement", account_id: a.accountId });
    expect(events.map((e: { key_id: string }) => e.key_id)).toEqual([`user:${owner.session.userId}`, `user:${owner.session.userId}`]);
  });
});

describe("signing in with an unknown address", () => {
  it("costs the same argon2 work as a wrong password, so the time of the answer tells nobody who is a user", async () => {
    const a = await server().account();
    const known = uniqueEmail("known");
    await userOf(a, known, "viewer");
    const timed = async (email: string) => {
      const t0 = performance.now();
      const res = await post("/api/v1/session", { email, password: "not the password at all" });
      expect((await problemOf(res)).code).toBe("invalid_credentials");
      return performance.now() - t0;
    };
    // Interleaved, so both kinds meet the same load; eight wrong passwords stay under the lockout's ten.
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 8; i++) {
      wrong.push(await timed(known));
      unknown.push(await timed(uniqueEmail("nobody")));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
    // The same work gives a ratio near 1. Without the decoy hash an unknown address skips the argon2id verify
    // (about 16 ms of 26 here): a ratio near 0.4, well under the lower bound; medians of interleaved runs keep
    // load from moving either side across its bound.
    const ratio = median(unknown) / median(wrong);
    expect(ratio, `unknown ${median(unknown).toFixed(1)} ms, wrong ${median(wrong).toFixed(1)} ms`).toBeGreaterThan(0.65);
    expect(ratio).toBeLessThan(1.55);
  });
});

describe("invitations by mail", () => {
  it("mails the link to the invited address where SMTP_URL is set, and says so", async () => {
    const a = await server().account();
    const invited = uniqueEmail("mailed");
    const res = await a.request("POST", "/api/v1/users/invite", { email: invited, role: "viewer" });
    expect(res.status).toBe(201);
    const invitation = (await res.json()) as { inviteUrl: string; mailed: boolean };
    expect(invitation.mailed).toBe(true);
    const mail = mails.find((m) => m.to.includes(invited));
    expect(mail).toBeDefined();
    expect(mail!.raw).toMatch(/^From: Invitations <invite@example\.com>/m);
    // The link whole, as the answer gave it (quoted-printable may fold a long line: unfold it first).
    expect(mail!.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=")).toContain(invitation.inviteUrl);
  });
});

describe("the first start's owner link", () => {
  it("makes the first-start account's owner with the address given on accepting, once", async () => {
    // What the first start does for its account (the start itself, printing the link: test/e2e/start.test.ts).
    const a = await server().account();
    const token = await inviteFirstStartOwner(server().db, a.accountId);
    expect(token).toMatch(/^inv_/);
    const withoutEmail = await post("/api/v1/users/accept", { token, password: PASSWORD });
    expect(withoutEmail.status).toBe(422);
    expect((await problemOf(withoutEmail)).code).toBe("email_required");
    const address = uniqueEmail("first-owner");
    const accepted = await post("/api/v1/users/accept", { token, password: PASSWORD, email: address.toUpperCase() });
    expect(accepted.status, await accepted.clone().text()).toBe(201);
    expect(await accepted.json()).toMatchObject({ email: address, role: "owner", status: "active" });
    const person = await signIn(address);
    expect(person.session).toMatchObject({ accountId: a.accountId, role: "owner" });
    expect((await post("/api/v1/users/accept", { token, password: PASSWORD, email: address })).status).toBe(404);
  });

  it("an ordinary invitation keeps its address: another one given on accepting is refused", async () => {
    const a = await server().account();
    const invited = uniqueEmail("invited");
    const res = await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, { email: invited, role: "viewer" });
    const { inviteToken } = (await res.json()) as { inviteToken: string };
    const other = await post("/api/v1/users/accept", { token: inviteToken, password: PASSWORD, email: uniqueEmail("other") });
    expect(other.status).toBe(422);
    expect((await problemOf(other)).code).toBe("email_mismatch");
    const same = await post("/api/v1/users/accept", { token: inviteToken, password: PASSWORD, email: invited.toUpperCase() });
    expect(same.status).toBe(201);
  });
});
