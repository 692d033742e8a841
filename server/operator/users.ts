// People who sign in (docs/USERS.md): invitations and their acceptance, roles and the last-owner rule,
// passwords (argon2id through @node-rs/argon2; at least 12 characters, not a commonly breached one — the list
// @zxcvbn-ts/language-common ships — and hard to guess by zxcvbn's score, at least 3 of 4), sign-in with its
// lockouts (an attempt counted before its password is verified), and sessions (a cookie's token and a CSRF
// token; only their SHA-256 is stored for the cookie). Addresses are compared folded (domain/textKeys.ts).
import { createHash, randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import { Secret, TOTP } from "otpauth";
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";
import type { Knex } from "knex";
import { isUniqueViolation } from "../db/errors.js";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { foldedKey, hasFormatCharacters } from "../domain/textKeys.js";
import { insertAuditEvent } from "./auditEventsTable.js";
import { revokeKeysMadeBy } from "./apiKeysTable.js";
import {
  ADDRESS_FAILURES,
  INVITATION_MS,
  LOCK_AFTER_FAILURES,
  LOCK_MS,
  mayManageRole,
  PASSWORD_MIN_LENGTH,
  SESSION_IDLE_MS,
  type AccountRole,
  type UserManager,
  type UserRole,
} from "./userRoles.js";
import {
  accountRequiresTwoFactor,
  addressRetryAfter,
  setAccountRequiresTwoFactor,
  deleteUser,
  disableTotp,
  enableTotp,
  setPendingTotp,
  takeRecoveryCode,
  takeTotpStep,
  totpState,
  clearSignInAttempts,
  findUserByEmail,
  insertInvitedUser,
  insertSession,
  invitationExists,
  lockInvitedUser,
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

/** Commonly breached passwords, lower-cased (49,000 of them; those under 12 characters are refused anyway). */
const BREACHED = new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));

/** zxcvbn with the language-neutral dictionaries and keyboard graphs (qwerty, dvorak, keypads). */
const zxcvbn = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
/** zxcvbn's score a password needs: 3 of 4, "safely unguessable" (about 10^8 guesses and more). */
export const PASSWORD_MIN_SCORE = 3;
/** zxcvbn's warnings (translation keys), said in words. */
const WEAKNESS: Record<string, string> = {
  straightRow: "a straight row of keys is easy to guess",
  keyPattern: "a short pattern of keys is easy to guess",
  simpleRepeat: "repeated characters (aaa) are easy to guess",
  extendedRepeat: "repeated patterns (abcabc) are easy to guess",
  sequences: "sequences (abc, 6543) are easy to guess",
  recentYears: "recent years are easy to guess",
  dates: "dates are easy to guess",
  topTen: "it is one of the most used passwords",
  topHundred: "it is a very often used password",
  common: "it is a commonly used password",
  similarToCommon: "it is close to a commonly used password",
  wordByItself: "a single word is easy to guess",
  namesByThemselves: "names alone are easy to guess",
  commonNames: "common names are easy to guess",
  userInputs: "it is made of your own details",
  pwned: "it appeared in a data breach",
};

/** Why a password is refused, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (BREACHED.has(password.toLowerCase())) return "is a commonly breached password: choose another";
  const judged = zxcvbn.check(password.slice(0, 200));
  if (judged.score < PASSWORD_MIN_SCORE) {
    const why = judged.feedback.warning ? WEAKNESS[judged.feedback.warning] : undefined;
    return `is too easy to guess (strength ${judged.score} of 4, at least ${PASSWORD_MIN_SCORE} needed${why ? `: ${why}` : ""}): add words or characters nobody would guess`;
  }
  return undefined;
}

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
  if (invite.role !== "operator" && !mayManageRole(invite.by, invite.role))
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

/**
 * An owner, signed in, requires two-factor sign-in of the whole account or stops requiring it; only with it on
 * for itself (409 `two_factor_off`), so requiring it never locks its owner out.
 */
export async function setTwoFactorRequirement(db: Knex, accountId: string, owner: SessionRow, required: boolean): Promise<boolean> {
  if (owner.role !== "owner") throw insufficientRole("Only an owner requires two-factor sign-in of the account.");
  if (required && !owner.twoFactor)
    throw new DomainError("two_factor_off", "Turn on two-factor sign-in for yourself first (Your sign-in), then require it of everyone.");
  await setAccountRequiresTwoFactor(db, accountId, required);
  return required;
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
  });
}

const lastOwner = () => new DomainError("last_owner", "This is the account's last owner: make another user owner first.");

/** A new session: its cookie's token (shown to the browser once) and what the answer says of it. */
export interface NewSession {
  token: string;
  session: SessionRow & { expiresAt: Date };
}

// Verified against when the email is unknown or has no password yet, so every failure costs one argon2 verify.
let decoy: Promise<string> | undefined;

const locked = (seconds: number) =>
  new DomainError("sign_in_locked", `Too many failed sign-ins: try again in ${seconds} s.`, { retryAfterSeconds: Math.max(1, seconds) });

/** How sign-in attempts are counted per address (a user's or not): ten within 15 minutes lock it for 15. */
const ATTEMPTS = { lockAfter: LOCK_AFTER_FAILURES, lockMs: LOCK_MS, windowMs: LOCK_MS };

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

// ---- two-factor sign-in: TOTP (RFC 6238) through otpauth -------------------------------------------------------

const ISSUER = "SMS Platform";
/** Codes of the step before and after the server's are taken too (clocks drift; a code typed at a step's end). */
const WINDOW = 1;
const totpOf = (secret: string, label = "") => new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret) });

/** The time step a code belongs to, or undefined when it is not a current code of `secret`. */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : Math.floor(now / 30_000) + delta;
}

/** A recovery code as typed, made comparable: lower case, no spaces; its SHA-256 is what is kept. */
const recoveryHash = (code: string) => sha256(code.toLowerCase().replace(/\s+/g, "")).toString("hex");

/** The second factor of a sign-in: a code of the app not taken before, or an unused recovery code. */
async function secondFactor(db: Knex, user: { id: string; totpSecret: string | null }, attempt: { totp?: string; recoveryCode?: string }) {
  if (attempt.totp && user.totpSecret) {
    const step = totpStep(user.totpSecret, attempt.totp);
    return step !== undefined && (await takeTotpStep(db, user.id, step));
  }
  if (attempt.recoveryCode) return takeRecoveryCode(db, user.id, recoveryHash(attempt.recoveryCode));
  return false;
}

const invalidCode = () =>
  new DomainError("invalid_code", "The code is not a current code of the authenticator app.", {
    errors: [{ path: "/body/code", message: "not a current code" }],
  });

/** A new secret to put in the app (it counts only once confirmed); 409 while two-factor sign-in is on. */
export async function beginTwoFactor(db: Knex, user: { userId: string; email: string }): Promise<{ secret: string; otpauthUrl: string }> {
  const secret = new Secret({ size: 20 }).base32;
  if (!(await setPendingTotp(db, user.userId, secret)))
    throw new DomainError("two_factor_enabled", "Two-factor sign-in is on already: turn it off first to begin again.");
  return { secret, otpauthUrl: totpOf(secret, user.email).toString() };
}

/** Turns two-factor sign-in on with a current code; the ten recovery codes, shown once (only hashes are kept). */
export async function confirmTwoFactor(db: Knex, userId: string, code: string): Promise<string[]> {
  const state = await totpState(db, userId);
  if (state?.enabled) throw new DomainError("two_factor_enabled", "Two-factor sign-in is on already.");
  const step = state?.secret ? totpStep(state.secret, code) : undefined;
  if (step === undefined) throw invalidCode();
  const codes = Array.from({ length: 10 }, () => {
    const raw = randomBytes(8).toString("hex");
    return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8, 12)}`;
  });
  if (!(await enableTotp(db, userId, step, codes.map(recoveryHash)))) throw invalidCode();
  return codes;
}

/**
 * Turns two-factor sign-in off with a current code of the app or a recovery code; never while the account
 * requires it. Each try is a sign-in attempt of the user's address, counted before the code is judged: wrong
 * codes lock it as wrong passwords do (429 `sign_in_locked`), so a session left open cannot be used to guess.
 */
export async function disableTwoFactor(
  db: Knex,
  user: { userId: string; email: string; accountId: string | null },
  code: string,
  address: string,
): Promise<void> {
  const userId = user.userId;
  if (user.accountId !== null && (await accountRequiresTwoFactor(db, user.accountId)))
    throw new DomainError("two_factor_required", "This account requires two-factor sign-in: it stays on while the owner requires it.");
  const state = await totpState(db, userId);
  if (!state?.enabled) return;
  const taken = await takeSignInAttempt(db, user.email, ATTEMPTS);
  if (!taken.taken) throw locked(taken.retryAfterSeconds);
  const step = state.secret && /^[0-9]{6}$/.test(code) ? totpStep(state.secret, code) : undefined;
  const proven = step !== undefined ? await takeTotpStep(db, userId, step) : await takeRecoveryCode(db, userId, recoveryHash(code));
  if (!proven) {
    await recordAddressFailure(db, address, LOCK_MS);
    throw invalidCode();
  }
  await clearSignInAttempts(db, user.email);
  await disableTotp(db, userId);
}
