// A forgotten password (docs/USERS.md, "Passwords"), against a real SMTP server on 127.0.0.1: the link is mailed
// to an active user's address and followed from the received mail; it works once and for an hour, a weak
// password leaves it usable, setting one ends every session and lifts a sign-in lock; every address gets the same
// answer and only a user's gets mail. An owner or an admin issues a link by hand, within the roles' rules.
import { beforeAll, describe, expect, it } from "vitest";
import { useMailServer } from "../helpers/mailServer.js";
import { people, PASSWORD, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";

// The mail server the service sends to, started before the API server, which reads its port.
const mailServer = useMailServer();
const { mails } = mailServer;

const server = useTestServer({
  get smtpUrl() {
    return mailServer.url;
  },
  smtpFrom: "Accounts <accounts@example.com>",
  publicUrl: "https://sms.example.com",
});
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { post, userOf, signIn } = people(server, () => op);
const NEW = "tangerine kettle orbit mosaic";

/** The token of the reset link mailed to `to` (the mail's text, quoted-printable undone: soft breaks, `=3D`). */
const mailedToken = (to: string) =>
  waitUntil(`a reset link mailed to ${to}`, async () => {
    const mail = mails.find((m) => m.to.includes(to) && m.raw.includes("Set a new password"));
    const text = mail?.raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
    return text?.match(/https:\/\/sms\.example\.com\/dashboard\/reset#token=(rst_[A-Za-z0-9_-]+)/)?.[1];
  });

describe("a forgotten password", () => {
  it("is reset from the mailed link, once: the sessions end, the old password stops, the new one signs in", async () => {
    const a = await server().account();
    const email = uniqueEmail("forgot");
    await userOf(a, email, "developer");
    const before = await signIn(email);
    const unknown = uniqueEmail("nobody");

    const asked = await post("/api/v1/users/password-reset", { email: unknown });
    const askedKnown = await post("/api/v1/users/password-reset", { email: email.toUpperCase() });
    expect([asked.status, askedKnown.status]).toEqual([202, 202]);
    expect(await askedKnown.json()).toEqual(await asked.json());
    const token = await mailedToken(email);
    // Mail goes to a user's address only.
    expect(mails.some((m) => m.to.includes(unknown))).toBe(false);

    const weak = await post("/api/v1/users/password-reset/confirm", { token, password: "password1234" });
    expect(weak.status).toBe(422);
    expect((await problemOf(weak)).code).toBe("weak_password");
    const done = await post("/api/v1/users/password-reset/confirm", { token, password: NEW });
    expect(done.status, await done.clone().text()).toBe(204);
    expect((await before.request("GET", "/api/v1/session")).status).toBe(401);
    expect((await post("/api/v1/session", { email, password: PASSWORD })).status).toBe(401);
    await signIn(email, NEW);
    const again = await post("/api/v1/users/password-reset/confirm", { token, password: "another tangerine kettle" });
    expect(again.status).toBe(404);
    expect((await problemOf(again)).code).toBe("reset_invalid");
  });

  it("an expired link is refused; a reset lifts the sign-in lock of the address", async () => {
    const a = await server().account();
    const email = uniqueEmail("locked");
    await userOf(a, email, "viewer");
    for (let i = 0; i < 10; i++) await post("/api/v1/session", { email, password: `wrong guess ${i}` });
    expect((await post("/api/v1/session", { email, password: PASSWORD })).status).toBe(429);

    expect((await post("/api/v1/users/password-reset", { email })).status).toBe(202);
    const stale = await mailedToken(email);
    await server()
      .db("password_resets")
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await problemOf(await post("/api/v1/users/password-reset/confirm", { token: stale, password: NEW }))).code).toBe(
      "reset_invalid",
    );

    mails.length = 0;
    expect((await post("/api/v1/users/password-reset", { email })).status).toBe(202);
    const fresh = await mailedToken(email);
    expect((await post("/api/v1/users/password-reset/confirm", { token: fresh, password: NEW })).status).toBe(204);
    await signIn(email, NEW);
  });

  it("is issued by hand by an owner or an admin, within the roles' rules; never for another account's user", async () => {
    const a = await server().account();
    const ownerEmail = uniqueEmail("owner");
    const adminEmail = uniqueEmail("admin");
    const devEmail = uniqueEmail("dev");
    const { userId: ownerId } = await userOf(a, ownerEmail, "owner");
    await userOf(a, adminEmail, "admin");
    const { userId: devId } = await userOf(a, devEmail, "developer");
    const owner = await signIn(ownerEmail);
    const admin = await signIn(adminEmail);

    const issued = await admin.request("POST", `/api/v1/users/${devId}/password-reset`);
    expect(issued.status, await issued.clone().text()).toBe(201);
    const link = (await issued.json()) as { resetUrl: string; resetToken: string; expiresAt: string };
    expect(link.resetUrl).toBe(`https://sms.example.com/dashboard/reset#token=${link.resetToken}`);
    expect(new Date(link.expiresAt).getTime() - Date.now()).toBeGreaterThan(50 * 60_000);
    expect((await post("/api/v1/users/password-reset/confirm", { token: link.resetToken, password: NEW })).status).toBe(204);
    // The reset ended the developer's sessions: signed in again with the new password.
    const dev = await signIn(devEmail, NEW);

    expect((await problemOf(await admin.request("POST", `/api/v1/users/${ownerId}/password-reset`))).code).toBe("insufficient_role");
    expect((await owner.request("POST", `/api/v1/users/${ownerId}/password-reset`)).status).toBe(201);
    expect((await problemOf(await dev.request("POST", `/api/v1/users/${ownerId}/password-reset`))).code).toBe("insufficient_role");

    const invited = await op.request("POST", `/api/v1/accounts/${a.accountId}/users/invite`, {
      email: uniqueEmail("later"),
      role: "viewer",
    });
    const { userId: invitedId } = (await invited.json()) as { userId: string };
    expect((await problemOf(await owner.request("POST", `/api/v1/users/${invitedId}/password-reset`))).code).toBe("user_invited");

    const other = await server().account();
    const { userId: stranger } = await userOf(other, uniqueEmail("stranger"), "developer");
    const foreign = await owner.request("POST", `/api/v1/users/${stranger}/password-reset`);
    expect(foreign.status).toBe(404);
  });
});
