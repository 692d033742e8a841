// People who sign in (docs/USERS.md): invitations and their acceptance, roles and the last-owner rule,
// passwords (argon2id through @node-rs/argon2; at least 12 characters, not a commonly breached one — the list
// @zxcvbn-ts/language-common ships — and hard to guess by zxcvbn's score, at least 3 of 4), sign-in with its
// lockouts (an attempt counted before its password is verified), and sessions (a cookie's token and a CSRF
// token; only their SHA-256 is stored for the cookie). Addresses are compared folded (domain/textKeys.ts).
import { createHash, randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import type { Knex } from "knex";
import { isUniqueViolation } from "../db/errors.js";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { foldedKey, hasFormatCharacters } from "../domain/textKeys.js";
import { insertAuditEvent } from "./auditEventsTable.js";
import { revokeKeysMadeBy } from "./apiKeysTable.js";
import { passwordProblem } from "./passwords.js";
import { ATTEMPTS, locked } from "./signInLock.js";
import { secondFactor } from "./twoFactor.js";
import {
  ADDRESS_FAILURES,
  INVITATION_MS,
  LOCK_AFTER_FAILURES,
  LOCK_MS,
  isOperatorRole,
  mayManageRole,
  SESSION_IDLE_MS,
  type AccountRole,
  type UserManager,
  type UserRole,
} from "./userRoles.js";
import {
  addressRetryAfter,
  deleteUser,
  clearSignInAttempts,
  findUserByEmail,
  insertInvitedUser,
  insertSession,
  invitationExists,
  lockInvitedUser,
  lockOperatorUser,
  lockUserAndOwners,
  recordAddressFailure,
  recordUserSignIn,
  returnSignInAttempt,
  takeSignInAttempt,
  setPassword,
  updateUserRole,
  useSession,
  type SessionRow,
  type UserRow,
} from "./usersTable.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();
const token = (prefix: string, bytes: number) => `${prefix}${randomBytes(bytes).toString("base64url")}`;

/**
 * An address as given, made comparable (folded: NFKC, case, format characters); 400 when it holds a format
 * character (a zero-width space, a bidi control such as U+202E): nobody's real address has one, a look-alike does.
 */
export function emailKey(input: string, path = "/body/email"): string {
  if (hasFormatCharacters(input))
    throw invalidField(path, "must not contain invisible or text-direction characters (Unicode format characters)");
  const email = foldedKey(input);
  if (email.length < 3) throw invalidField(path, "is not an email address");
  return email;
}

const insufficientRole = (detail: string) => new DomainError("insufficient_role", detail);

export interface NewInvitation {
  user: UserRow;
  token: string;
  expiresAt: Date;
}

/**
 * Invites `email` with `role` to an account (null: an operator user). 409 `user_exists` when the address is a
 * user of that account already (the inviter sees its own users anyway). Whether it is another account's user,
 * or invited by another account, is never told: the invitation is made as any other (201), and the address's
 * owner finds out on accepting it (an address is one active user in the service).
 */
export async function inviteUser(
  db: Knex,
  invite: { accountId: string | null; email: string; role: UserRole; by: UserManager },
): Promise<NewInvitation> {
  if (!isOperatorRole(invite.role) && !mayManageRole(invite.by, invite.role))
    throw insufficientRole("Only an owner (or the operator) invites an owner.");
  const inviteToken = token("inv_", 24);
  const expiresAt = new Date(Date.now() + INVITATION_MS);
  const email = emailKey(invite.email);
  const user = await insertInvitedUser(db, {
    accountId: invite.accountId,
    email,
    role: invite.role,
    tokenHash: sha256(inviteToken),
    expiresAt,
  });
  if (!user)
    throw new DomainError("user_exists", `${email} is a user here already.`, { errors: [{ path: "/body/email", message: "taken" }] });
  return { user, token: inviteToken, expiresAt };
}

/**
 * The dashboard's page that accepts an invitation, at PUBLIC_URL (default `http://localhost:PORT`); the token in
 * the fragment never reaches an access log. `first` marks the first start's owner link (the page asks the address).
 */
export function invitationUrl(config: { publicUrl?: string; port: number }, token: string, first = false): string {
  const base = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/$/, "");
  return `${base}/dashboard/accept#token=${token}${first ? "&first=1" : ""}`;
}

/**
 * The address of the first start's owner until its link is accepted: the link is printed to a terminal, not
 * sent to anyone, so the person gives the address there (`.invalid` is a reserved domain: never anyone's).
 */
export const FIRST_START_OWNER_EMAIL = "owner@first-start.invalid";

/** The first start's one-time link's token: an invitation to be the first-start account's owner. */
export async function inviteFirstStartOwner(db: Knex, accountId: string): Promise<string> {
  return (await inviteUser(db, { accountId, email: FIRST_START_OWNER_EMAIL, role: "owner", by: "operator" })).token;
}

/**
 * Sets the invited user's password; 404 `invitation_invalid` for a token unknown, used or expired. `email` is
 * the address of the first start's owner (422 `email_required` without it there); for any other invitation,
 * if given, it must be the invited one (422 `email_mismatch`).
 */
export async function acceptInvitation(db: Knex, inviteToken: string, password: string, email?: string): Promise<UserRow> {
  const tokenHash = sha256(inviteToken);
  const invalid = () => new DomainError("invitation_invalid", "The invitation is unknown, used or expired: ask for a new one.");
  // The token first: nothing is judged or hashed for a token that names no invitation.
  if (!(await invitationExists(db, tokenHash))) throw invalid();
  const problem = passwordProblem(password);
  if (problem)
    throw new DomainError("weak_password", `The password ${problem}.`, { errors: [{ path: "/body/password", message: problem }] });
  const given = email === undefined ? undefined : emailKey(email);
  // Hashed before the transaction: it takes tens of milliseconds, and holds nothing meanwhile.
  const passwordHash = await hash(password);
  const taken = (address: string) =>
    new DomainError("user_exists", `${address} is a user already: sign in with it.`, {
      errors: [{ path: "/body/email", message: "taken" }],
    });
  try {
    return await db.transaction(async (tx) => {
      const user = await lockInvitedUser(tx, tokenHash);
      if (!user) throw invalid();
      const emailError = (code: "email_required" | "email_mismatch", message: string) =>
        new DomainError(code, `\`email\` ${message}.`, { errors: [{ path: "/body/email", message }] });
      if (user.email === FIRST_START_OWNER_EMAIL && !given)
        throw emailError("email_required", "is needed: the address you will sign in with");
      if (user.email !== FIRST_START_OWNER_EMAIL && given !== undefined && given !== user.email)
        throw emailError("email_mismatch", "is not the address this invitation was made for");
      const accepted = await setPassword(tx, user.id, passwordHash, given ?? user.email);
      if (!accepted) throw taken(given ?? user.email);
      return accepted;
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_active_email") || isUniqueViolation(error, "users_account_email"))
      throw taken(given ?? "The address");
    throw error;
  }
}

/** A user's new role; the account's last owner stays one. */
export async function changeUserRole(db: Knex, accountId: string, userId: string, role: AccountRole, by: UserManager): Promise<UserRow> {
  return db.transaction(async (tx) => {
    const { user, owners } = await lockUserAndOwners(tx, accountId, userId);
    if (!user) throw notFound("User");
    if (!mayManageRole(by, user.role as AccountRole) || !mayManageRole(by, role))
      throw insufficientRole("Only an owner makes or unmakes an owner.");
    if (user.role === "owner" && role !== "owner" && owners <= 1) throw lastOwner();
    return updateUserRole(tx, userId, role);
  });
}

/** Who removes a user, for the audit events of the keys that go with it. */
export interface Remover {
  actorType: "account" | "operator";
  /** The remover's key id (`user:<userId>` for a session). */
  keyId: string;
  requestId: string;
}

/**
 * Removes a user (its sessions end with it); never the account's last owner. Every key the user made (with a
 * session, or by a key they made) is revoked in the same transaction, each revocation audited as `Keys_revoke`
 * by the remover: a key is never more than the person who made it, and a person removed is no one.
 */
export async function removeUser(db: Knex, accountId: string, userId: string, by: UserManager, remover: Remover): Promise<void> {
  await db.transaction(async (tx) => {
    const { user, owners } = await lockUserAndOwners(tx, accountId, userId);
    if (!user) throw notFound("User");
    if (!mayManageRole(by, user.role as AccountRole)) throw insufficientRole("Only an owner removes an owner.");
    if (user.role === "owner" && owners <= 1) throw lastOwner();
    await deleteUserAndKeys(tx, userId, remover);
  });
}

/**
 * Removes an operator user, as removeUser does a user of an account: their sessions end with them, and every
 * key they made is revoked, each revocation audited. 404 for an id that is not an operator user's.
 */
export async function removeOperatorUser(db: Knex, userId: string, remover: Remover): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await lockOperatorUser(tx, userId))) throw notFound("User");
    await deleteUserAndKeys(tx, userId, remover);
  });
}

/** The keys a person made revoked (each audited as the remover's `Keys_revoke`), then the person deleted. */
async function deleteUserAndKeys(tx: Knex.Transaction, userId: string, remover: Remover): Promise<void> {
  for (const revoked of await revokeKeysMadeBy(tx, userId)) {
    await insertAuditEvent(tx, {
      actorType: remover.actorType,
      keyId: remover.keyId,
      accountId: revoked.accountId,
      action: "Keys_revoke",
      resourceId: revoked.keyId,
      requestId: remover.requestId,
      status: 204,
    });
  }
  await deleteUser(tx, userId);
}

const lastOwner = () => new DomainError("last_owner", "This is the account's last owner: make another user owner first.");

/** A new session: its cookie's token (shown to the browser once) and what the answer says of it. */
export interface NewSession {
  token: string;
  session: SessionRow & { expiresAt: Date };
}

// Verified against when the email is unknown or has no password yet, so every failure costs one argon2 verify.
let decoy: Promise<string> | undefined;

/**
 * Signs a person in. Every refusal of an unknown email or a wrong password is the same 401, after the same
 * argon2 verify. Each attempt is counted against the address signed in with, whether a user has it or not,
 * *before* its password is verified (ten within 15 minutes lock it for 15 minutes: at most ten guesses are
 * verified in a lock window, concurrent ones included), and each failure against the client address (30 in 15
 * minutes slow that address down, whoever it tries). Audited, failures included.
 */
export async function signIn(
  db: Knex,
  attempt: {
    email: string;
    password: string;
    totp?: string;
    recoveryCode?: string;
    address: string;
    userAgent: string | null;
    requestId: string;
  },
): Promise<NewSession> {
  const email = emailKey(attempt.email);
  const audit = (user: { id: string; accountId: string | null } | undefined, status: number) =>
    insertAuditEvent(db, {
      actorType: user?.accountId === null ? "operator" : "account",
      keyId: user ? `user:${user.id}` : null,
      accountId: user?.accountId ?? null,
      action: "Sessions_create",
      resourceId: user?.id ?? null,
      requestId: attempt.requestId,
      status,
    });
  const addressWait = await addressRetryAfter(db, attempt.address, ADDRESS_FAILURES, LOCK_MS);
  if (addressWait > 0) {
    await audit(undefined, 429);
    throw locked(addressWait);
  }
  const user = await findUserByEmail(db, email);
  // Counted before the password is verified, in one statement: a burst of guesses cannot outrun the lock.
  const taken = await takeSignInAttempt(db, email, ATTEMPTS);
  if (!taken.taken) {
    await audit(user, 429);
    throw locked(taken.retryAfterSeconds);
  }
  const stored = user?.passwordHash ?? (await (decoy ??= hash("decoy password, never anyone's")));
  const matches = (await verify(stored, attempt.password)) && !!user?.passwordHash;
  if (!matches || !user) {
    await recordAddressFailure(db, attempt.address, LOCK_MS);
    await audit(user, 401);
    throw new DomainError("invalid_credentials", "The email address or the password is wrong.");
  }
  if (user.totpEnabled && !(await secondFactor(db, user, attempt))) {
    // No code: not a failure (the dashboard asks for it next), so the attempt is given back. A wrong one: a
    // failure like a wrong password (its attempt stays counted).
    if (attempt.totp || attempt.recoveryCode) {
      await recordAddressFailure(db, attempt.address, LOCK_MS);
      await audit(user, 401);
    } else await returnSignInAttempt(db, email, LOCK_AFTER_FAILURES);
    throw new DomainError(
      "totp_required",
      "This user signs in with a second factor: send `totp`, the app's current code (or a `recoveryCode`).",
    );
  }
  await clearSignInAttempts(db, email);
  await recordUserSignIn(db, user.id);
  const sessionToken = token("ses_", 32);
  const csrfToken = token("csrf_", 18);
  const made = await insertSession(db, {
    tokenHash: sha256(sessionToken),
    userId: user.id,
    csrfToken,
    userAgent: attempt.userAgent?.slice(0, 300) ?? null,
    address: attempt.address,
  });
  await audit(user, 201);
  return {
    token: sessionToken,
    session: {
      id: made.id,
      userId: user.id,
      email: user.email,
      accountId: user.accountId,
      role: user.role,
      csrfToken,
      lastSeenAt: made.lastSeenAt,
      twoFactor: user.totpEnabled,
      twoFactorRequired: user.twoFactorRequired,
      expiresAt: new Date(made.lastSeenAt.getTime() + SESSION_IDLE_MS),
    },
  };
}

/** The live session a cookie's token names (its last use moved on), or undefined. */
export async function sessionOfToken(db: Knex, sessionToken: string): Promise<SessionRow | undefined> {
  return useSession(db, sha256(sessionToken), SESSION_IDLE_MS);
}

/** When a session ends unless used again. */
export const sessionExpiry = (s: { lastSeenAt: Date }) => new Date(s.lastSeenAt.getTime() + SESSION_IDLE_MS);

export { PASSWORD_MIN_SCORE, passwordProblem } from "./passwords.js";
export { beginTwoFactor, confirmTwoFactor, disableTwoFactor, totpStep } from "./twoFactor.js";
