// Users and sessions (docs/USERS.md): invitations (an account's, the operator's), accepting one, roles, signing in
// and out. The session cookie is set and cleared here; the gate that reads it is auth.ts's.
import type { Knex } from "knex";
import { serialize } from "cookie";
import {
  acceptInvitation,
  accountRequiresTwoFactor,
  setOperatorTwoFactorRequirement,
  setTwoFactorRequirement,
  beginTwoFactor,
  changePassword,
  changeOperatorUserRole,
  changeUserRole,
  confirmPasswordReset,
  issuePasswordReset,
  passwordResetUrl,
  requestPasswordReset,
  confirmTwoFactor,
  disableTwoFactor,
  deleteSession,
  deleteUserSession,
  deleteUserSessions,
  getAccount,
  inviteUser,
  isOperatorRole,
  invitationUrl,
  listUserSessions,
  listUsers,
  removeOperatorUser,
  removeUser,
  SESSION_IDLE_MS,
  sessionExpiry,
  signIn,
  type NewInvitation,
  type UserManager,
  type UserRow,
} from "../../operator/index.js";
import { DomainError, notFound } from "../../domain/errors.js";
import { SESSION_COOKIE, type RequestSession } from "../auth.js";
import { browserAndSystem } from "../../domain/userAgents.js";
import { iso } from "../serialize.js";
import type { Context, Handlers, OperationId } from "../types.js";

const toUser = (u: UserRow) => ({
  userId: u.id,
  email: u.email,
  role: u.role,
  accountId: u.accountId,
  status: u.status,
  twoFactor: u.twoFactor,
  createdAt: iso(u.createdAt),
  lastSignInAt: u.lastSignInAt ? iso(u.lastSignInAt) : null,
});

/** The invitation's answer, once it was mailed where SMTP_URL is set. */
async function invitationAnswer(ctx: Context<OperationId>, i: NewInvitation, accountName: string | undefined) {
  const inviteUrl = invitationUrl(ctx.config, i.token);
  const mailed = ctx.mailer
    ? await ctx.mailer.send({ to: i.user.email, role: i.user.role, accountName, link: inviteUrl, expiresAt: i.expiresAt })
    : false;
  return {
    userId: i.user.id,
    email: i.user.email,
    role: i.user.role,
    inviteUrl,
    inviteToken: i.token,
    expiresAt: iso(i.expiresAt),
    mailed,
  };
}

/** The answer to every reset request, whoever's the address (and whether mail goes out at all). */
const RESET_REQUESTED = "If this address is a user's, a link to set a new password is on its way. It works once, for an hour.";

/** Who manages users in this request: the signed-in user's role, or a program's key. */
const managerOf = (ctx: { session: RequestSession | undefined }): UserManager =>
  ctx.session ? (isOperatorRole(ctx.session.role) ? "operator" : ctx.session.role) : "key";

function requireSession(session: RequestSession | undefined): RequestSession {
  if (!session)
    throw new DomainError("session_required", "This is about a person's session: sign in (POST /api/v1/session); a key has none.");
  return session;
}

/**
 * The session cookie: HttpOnly, SameSite=Strict, Secure when the browser reached the service over TLS (PUBLIC_URL
 * https, a TLS connection, or X-Forwarded-Proto behind TRUST_PROXY: app.ts); `token` empty clears it.
 */
function sessionCookie(token: string, secure: boolean): string {
  return serialize(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "strict",
    secure,
    path: "/",
    maxAge: token ? SESSION_IDLE_MS / 1000 : 0,
  });
}

const toSession = (s: RequestSession) => ({
  sessionId: s.id,
  userId: s.userId,
  email: s.email,
  accountId: s.accountId,
  role: s.role,
  csrfToken: s.csrfToken,
  expiresAt: iso(sessionExpiry(s)),
  twoFactor: s.twoFactor,
  twoFactorRequired: s.twoFactorRequired,
});

async function accountName(db: Knex, accountId: string): Promise<string> {
  const account = await getAccount(db, accountId);
  if (!account) throw notFound("Account");
  return account.name;
}

export const userHandlers: Pick<
  Handlers,
  | "Users_invite"
  | "Users_accept"
  | "Users_list"
  | "Users_update"
  | "Users_delete"
  | "Users_setTwoFactorRequirement"
  | "OperatorUsers_inviteToAccount"
  | "OperatorUsers_invite"
  | "OperatorUsers_list"
  | "OperatorUsers_remove"
  | "OperatorUsers_update"
  | "OperatorUsers_setTwoFactorRequirement"
  | "Sessions_create"
  | "Sessions_get"
  | "Sessions_delete"
  | "Sessions_list"
  | "Sessions_deleteAll"
  | "Sessions_end"
  | "TwoFactor_begin"
  | "TwoFactor_confirm"
  | "TwoFactor_disable"
  | "Passwords_change"
  | "PasswordResets_requestReset"
  | "PasswordResets_confirmReset"
  | "PasswordResets_issueReset"
> = {
  async Users_invite(ctx) {
    const { db, account, body } = ctx;
    const invitation = await inviteUser(db, { accountId: account.id, email: body.email, role: body.role, by: managerOf(ctx) });
    return { status: 201, body: await invitationAnswer(ctx, invitation, account.name) };
  },

  async Users_accept({ db, body }) {
    return { status: 201, body: toUser(await acceptInvitation(db, body.token, body.password, body.email)) };
  },

  async Users_list({ db, account }) {
    const [users, twoFactorRequired] = await Promise.all([listUsers(db, account.id), accountRequiresTwoFactor(db, account.id)]);
    return { status: 200, body: { twoFactorRequired, data: users.map(toUser) } };
  },

  async Users_setTwoFactorRequirement({ db, account, session, body }) {
    return { status: 200, body: { required: await setTwoFactorRequirement(db, account.id, requireSession(session), body.required) } };
  },

  async Users_update(ctx) {
    const { db, account, path, body } = ctx;
    return { status: 200, body: toUser(await changeUserRole(db, account.id, path.userId, body.role, managerOf(ctx))) };
  },

  async Users_delete(ctx) {
    await removeUser(ctx.db, ctx.account.id, ctx.path.userId, managerOf(ctx), {
      actorType: ctx.key.kind,
      keyId: ctx.key.id,
      requestId: ctx.client.requestId,
    });
    return { status: 204 };
  },

  async OperatorUsers_inviteToAccount(ctx) {
    const { db, path, body } = ctx;
    const name = await accountName(db, path.accountId);
    const invitation = await inviteUser(db, { accountId: path.accountId, email: body.email, role: body.role, by: "operator" });
    return { status: 201, body: await invitationAnswer(ctx, invitation, name) };
  },

  async OperatorUsers_remove(ctx) {
    await removeOperatorUser(ctx.db, ctx.path.userId, { actorType: ctx.key.kind, keyId: ctx.key.id, requestId: ctx.client.requestId });
    return { status: 204 };
  },

  async OperatorUsers_update(ctx) {
    const user = await changeOperatorUserRole(ctx.db, ctx.path.userId, ctx.body.role);
    return { status: 200, body: toUser(user) };
  },

  async OperatorUsers_invite(ctx) {
    const role = ctx.body.role ?? "operator";
    const invitation = await inviteUser(ctx.db, { accountId: null, email: ctx.body.email, role, by: "operator" });
    return { status: 201, body: await invitationAnswer(ctx, invitation, undefined) };
  },

  async OperatorUsers_list({ db }) {
    const [users, twoFactorRequired] = await Promise.all([listUsers(db, null), accountRequiresTwoFactor(db, null)]);
    return { status: 200, body: { twoFactorRequired, data: users.map(toUser) } };
  },

  async OperatorUsers_setTwoFactorRequirement({ db, session, body }) {
    return { status: 200, body: { required: await setOperatorTwoFactorRequirement(db, session, body.required) } };
  },

  async Sessions_create({ db, body, client }) {
    const made = await signIn(db, { ...body, address: client.address, userAgent: client.userAgent, requestId: client.requestId });
    return { status: 201, body: toSession(made.session), headers: { "Set-Cookie": sessionCookie(made.token, client.secure) } };
  },

  async Sessions_get({ session }) {
    return { status: 200, body: toSession(requireSession(session)) };
  },

  async Sessions_delete({ db, session, client }) {
    await deleteSession(db, requireSession(session).id);
    return { status: 204, headers: { "Set-Cookie": sessionCookie("", client.secure) } };
  },

  async Sessions_list({ db, session }) {
    const current = requireSession(session);
    const sessions = await listUserSessions(db, current.userId, SESSION_IDLE_MS);
    return {
      status: 200,
      body: {
        data: sessions.map((s) => ({
          sessionId: s.id,
          createdAt: iso(s.createdAt),
          lastSeenAt: iso(s.lastSeenAt),
          userAgent: s.userAgent,
          device: browserAndSystem(s.userAgent),
          address: s.address,
          current: s.id === current.id,
        })),
      },
    };
  },

  async Sessions_end({ db, session, path }) {
    if (!(await deleteUserSession(db, requireSession(session).userId, path.sessionId))) throw notFound("Session");
    return { status: 204 };
  },

  async Sessions_deleteAll({ db, session, client }) {
    await deleteUserSessions(db, requireSession(session).userId);
    return { status: 204, headers: { "Set-Cookie": sessionCookie("", client.secure) } };
  },

  async TwoFactor_begin({ db, session }) {
    return { status: 201, body: await beginTwoFactor(db, requireSession(session)) };
  },

  async TwoFactor_confirm({ db, session, body }) {
    return { status: 200, body: { recoveryCodes: await confirmTwoFactor(db, requireSession(session).userId, body.code) } };
  },

  async TwoFactor_disable({ db, session, body, client }) {
    await disableTwoFactor(db, requireSession(session), body.code, client.address);
    return { status: 204 };
  },

  async Passwords_change({ db, session, body, client }) {
    await changePassword(db, requireSession(session), body, client.address);
    return { status: 204 };
  },

  async PasswordResets_requestReset({ db, body, config, mailer }) {
    const send =
      mailer &&
      ((to: string, r: { token: string; expiresAt: Date }) =>
        mailer.sendPasswordReset({ to, link: passwordResetUrl(config, r.token), expiresAt: r.expiresAt }));
    await requestPasswordReset(db, body.email, send);
    return { status: 202, body: { message: RESET_REQUESTED } };
  },

  async PasswordResets_confirmReset({ db, body }) {
    await confirmPasswordReset(db, body.token, body.password);
    return { status: 204 };
  },

  async PasswordResets_issueReset(ctx) {
    const reset = await issuePasswordReset(ctx.db, ctx.account.id, ctx.path.userId, managerOf(ctx));
    return {
      status: 201,
      body: { resetUrl: passwordResetUrl(ctx.config, reset.token), resetToken: reset.token, expiresAt: iso(reset.expiresAt) },
    };
  },
};
