// The users, their invitations and sessions, and sign-in failures by address (migration 052; who moves each
// column is said there). SQL only; the rules are users.ts's.
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";
import type { AccountRole, OperatorRole, UserRole } from "./userRoles.js";

export interface UserRow {
  id: string;
  accountId: string | null;
  email: string;
  role: UserRole;
  status: "invited" | "active";
  twoFactor: boolean;
  createdAt: Date;
  lastSignInAt: Date | null;
}

const USER = sql`id, account_id AS "accountId", email, role, CASE WHEN password_hash IS NULL THEN 'invited' ELSE 'active' END AS status,
                 totp_enabled AS "twoFactor", created_at AS "createdAt", last_sign_in_at AS "lastSignInAt"`;

/**
 * A new invited user (no password yet) of an account (null: an operator user) with its invitation; undefined
 * when the address is a user of that account (invited or active) already. Another account's user or
 * invitation of the same address is no obstacle: an address is held across the service only once accepted.
 */
export async function insertInvitedUser(
  db: Knex,
  u: { accountId: string | null; email: string; role: UserRole; tokenHash: Buffer; expiresAt: Date },
): Promise<UserRow | undefined> {
  const { rows } = await run<UserRow>(
    db,
    sql`WITH u AS (
          INSERT INTO users (account_id, email, role) VALUES (${u.accountId}::uuid, ${u.email}, ${u.role})
          ON CONFLICT (account_id, email) DO NOTHING
          RETURNING *
        ), i AS (
          INSERT INTO user_invitations (token_hash, user_id, expires_at) SELECT ${u.tokenHash}, id, ${u.expiresAt} FROM u
        )
        SELECT ${USER} FROM u`,
  );
  return rows[0];
}

/** Whether an unexpired invitation token exists (looked up before any password is judged or hashed). */
export async function invitationExists(db: Knex, tokenHash: Buffer): Promise<boolean> {
  const { rows } = await run(db, sql`SELECT 1 FROM user_invitations WHERE token_hash = ${tokenHash} AND expires_at > now()`);
  return rows.length === 1;
}

/** The user an unexpired invitation token names, locked for its acceptance; undefined when there is none. */
export async function lockInvitedUser(tx: Knex.Transaction, tokenHash: Buffer): Promise<{ id: string; email: string } | undefined> {
  const { rows } = await run<{ id: string; email: string }>(
    tx,
    sql`SELECT u.id, u.email FROM user_invitations i JOIN users u ON u.id = i.user_id
         WHERE i.token_hash = ${tokenHash} AND i.expires_at > now() FOR UPDATE OF u`,
  );
  return rows[0];
}

/**
 * Sets the password (its argon2id hash) and the address, and uses up the user's invitations; undefined when
 * the address is another active user's already (the unique index users_active_email holds it under races:
 * the caller maps its violation to the same answer).
 */
export async function setPassword(tx: Knex.Transaction, userId: string, passwordHash: string, email: string): Promise<UserRow | undefined> {
  const { rows } = await run<UserRow>(
    tx,
    sql`WITH gone AS (DELETE FROM user_invitations WHERE user_id = ${userId})
        UPDATE users SET password_hash = ${passwordHash}, email = ${email}, failed_sign_ins = 0, locked_until = NULL
         WHERE id = ${userId}
           AND NOT EXISTS (SELECT 1 FROM users o WHERE o.email = ${email} AND o.id <> ${userId} AND o.password_hash IS NOT NULL)
        RETURNING ${USER}`,
  );
  return rows[0];
}

/** Whether the account (null: the operator, of its operator users) requires two-factor sign-in of its users. */
export async function accountRequiresTwoFactor(db: Knex, accountId: string | null): Promise<boolean> {
  const { rows } =
    accountId === null
      ? await run<{ required: boolean }>(db, sql`SELECT require_two_factor AS required FROM operator_settings`)
      : await run<{ required: boolean }>(db, sql`SELECT require_two_factor AS required FROM accounts WHERE id = ${accountId}`);
  return rows[0]?.required === true;
}

export async function setOperatorRequiresTwoFactor(db: Knex, required: boolean): Promise<void> {
  await run(db, sql`UPDATE operator_settings SET require_two_factor = ${required}`);
}

export async function setAccountRequiresTwoFactor(db: Knex, accountId: string, required: boolean): Promise<void> {
  await run(db, sql`UPDATE accounts SET require_two_factor = ${required} WHERE id = ${accountId}`);
}

/** The users of an account (null: the operator users), oldest first. */
export async function listUsers(db: Knex, accountId: string | null): Promise<UserRow[]> {
  const { rows } = await run<UserRow>(
    db,
    sql`SELECT ${USER} FROM users WHERE account_id IS NOT DISTINCT FROM ${accountId}::uuid ORDER BY created_at, id`,
  );
  return rows;
}

/** One user of the account, its row locked, and the account's owners locked with it (the last-owner rule). */
export async function lockUserAndOwners(
  tx: Knex.Transaction,
  accountId: string,
  userId: string,
): Promise<{ user: UserRow | undefined; owners: number }> {
  const { rows } = await run<{ id: string; role: UserRole }>(
    tx,
    sql`SELECT id, role FROM users WHERE account_id = ${accountId} AND (role = 'owner' OR id = ${userId}::uuid) ORDER BY id FOR UPDATE`,
  );
  const user = rows.some((r) => r.id === userId) ? await getUser(tx, accountId, userId) : undefined;
  return { user, owners: rows.filter((r) => r.role === "owner").length };
}

/** Locks an operator user's row (no account) for its removal or a role change; false when there is none. */
export async function lockOperatorUser(tx: Knex.Transaction, userId: string): Promise<boolean> {
  const { rows } = await run(tx, sql`SELECT id FROM users WHERE id = ${userId}::uuid AND account_id IS NULL FOR UPDATE`);
  return rows.length > 0;
}

export async function getUser(db: Knex, accountId: string | null, userId: string): Promise<UserRow | undefined> {
  const { rows } = await run<UserRow>(
    db,
    sql`SELECT ${USER} FROM users WHERE id = ${userId}::uuid AND account_id IS NOT DISTINCT FROM ${accountId}::uuid`,
  );
  return rows[0];
}

export async function updateUserRole(tx: Knex.Transaction, userId: string, role: AccountRole | OperatorRole): Promise<UserRow> {
  const { rows } = await run<UserRow>(tx, sql`UPDATE users SET role = ${role} WHERE id = ${userId} RETURNING ${USER}`);
  return rows[0]!;
}

/** Removes the user: its invitations and sessions go with it (ON DELETE CASCADE). */
export async function deleteUser(tx: Knex.Transaction, userId: string): Promise<void> {
  await run(tx, sql`DELETE FROM users WHERE id = ${userId}`);
}

/** What a sign-in needs of a user, found by email. */
export interface SignInUser {
  id: string;
  accountId: string | null;
  email: string;
  role: UserRole;
  passwordHash: string | null;
  totpEnabled: boolean;
  totpSecret: string | null;
  /** Its account requires two-factor sign-in. */
  twoFactorRequired: boolean;
}

/** The active user (one who accepted an invitation) of an address; invitations are nobody yet. */
export async function findUserByEmail(db: Knex, email: string): Promise<SignInUser | undefined> {
  const { rows } = await run<SignInUser>(
    db,
    sql`SELECT u.id, u.account_id AS "accountId", u.email, u.role, u.password_hash AS "passwordHash",
               u.totp_enabled AS "totpEnabled", u.totp_secret AS "totpSecret", coalesce(CASE WHEN u.account_id IS NULL THEN (SELECT require_two_factor FROM operator_settings) ELSE a.require_two_factor END, false) AS "twoFactorRequired"
          FROM users u LEFT JOIN accounts a ON a.id = u.account_id WHERE u.email = ${email} AND u.password_hash IS NOT NULL`,
  );
  return rows[0];
}

const interval = (ms: number) => sql`make_interval(secs => ${ms / 1000}::float8)`;

/**
 * Counts a sign-in attempt for an address (the folded email, a user's or not) *before* its password is
 * verified, in one statement: the attempt is taken unless the address is locked; the `lockAfter`-th attempt
 * within `windowMs` of the one before locks it for `lockMs`. Concurrent attempts queue on the row, so no more
 * than `lockAfter` are ever taken in a lock window. Not taken while it is locked: the seconds until it is not.
 */
export async function takeSignInAttempt(
  db: Knex,
  email: string,
  limits: { lockAfter: number; lockMs: number; windowMs: number },
): Promise<{ taken: true } | { taken: false; retryAfterSeconds: number }> {
  const restart = sql`(l.locked_until IS NOT NULL OR l.updated_at <= now() - ${interval(limits.windowMs)})`;
  const next = sql`CASE WHEN ${restart} THEN 1 ELSE l.failures + 1 END`;
  const { rows } = await run<{ failures: number }>(
    db,
    sql`INSERT INTO sign_in_locks AS l (email, failures, locked_until, updated_at)
        VALUES (${email}, 1, CASE WHEN 1 >= ${limits.lockAfter}::int THEN now() + ${interval(limits.lockMs)} END, now())
        ON CONFLICT (email) DO UPDATE
           SET failures = ${next},
               locked_until = CASE WHEN ${next} >= ${limits.lockAfter}::int THEN now() + ${interval(limits.lockMs)} END,
               updated_at = now()
         WHERE l.locked_until IS NULL OR l.locked_until <= now()
        RETURNING failures`,
  );
  if (rows.length === 1) return { taken: true };
  const { rows: lock } = await run<{ wait: number | null }>(
    db,
    sql`SELECT ceil(extract(epoch FROM locked_until - now()))::int AS wait FROM sign_in_locks WHERE email = ${email}`,
  );
  return { taken: false, retryAfterSeconds: Math.max(1, lock[0]?.wait ?? 1) };
}

/** Gives an attempt back (a right password that now needs its second factor is no failure). */
export async function returnSignInAttempt(db: Knex, email: string, lockAfter: number): Promise<void> {
  await run(
    db,
    sql`UPDATE sign_in_locks SET failures = failures - 1,
                                 locked_until = CASE WHEN failures - 1 >= ${lockAfter}::int THEN locked_until END
         WHERE email = ${email} AND failures > 0`,
  );
}

/** A sign-in: the address's attempts are forgotten. */
export async function clearSignInAttempts(db: Knex, email: string): Promise<void> {
  await run(db, sql`DELETE FROM sign_in_locks WHERE email = ${email}`);
}

export async function recordUserSignIn(db: Knex, userId: string): Promise<void> {
  await run(db, sql`UPDATE users SET last_sign_in_at = now() WHERE id = ${userId}`);
}

/** One more failure from `address` in its window (a new window once the last is over); the count now. */
export async function recordAddressFailure(db: Knex, address: string, windowMs: number): Promise<void> {
  await run(
    db,
    sql`INSERT INTO sign_in_failures AS f (address, failures, window_start) VALUES (${address}, 1, now())
        ON CONFLICT (address) DO UPDATE
           SET failures = CASE WHEN f.window_start < now() - make_interval(secs => ${windowMs / 1000}::float8) THEN 1 ELSE f.failures + 1 END,
               window_start = CASE WHEN f.window_start < now() - make_interval(secs => ${windowMs / 1000}::float8) THEN now() ELSE f.window_start END`,
  );
}

/** Seconds until `address` may try again (0: now), after `limit` failures in its window. */
export async function addressRetryAfter(db: Knex, address: string, limit: number, windowMs: number): Promise<number> {
  const { rows } = await run<{ wait: number }>(
    db,
    sql`SELECT ceil(extract(epoch FROM window_start + make_interval(secs => ${windowMs / 1000}::float8) - now()))::int AS wait
          FROM sign_in_failures WHERE address = ${address} AND failures >= ${limit}
           AND window_start > now() - make_interval(secs => ${windowMs / 1000}::float8)`,
  );
  return Math.max(0, rows[0]?.wait ?? 0);
}

/** The session a cookie's token names, with its user, while it has been used within `idleMs`. */
export interface SessionRow {
  id: string;
  userId: string;
  email: string;
  accountId: string | null;
  role: UserRole;
  csrfToken: string;
  lastSeenAt: Date;
  /** The user signs in with a second factor. */
  twoFactor: boolean;
  /** The user's account requires two-factor sign-in. */
  twoFactorRequired: boolean;
}

export async function insertSession(
  db: Knex,
  s: { tokenHash: Buffer; userId: string; csrfToken: string; userAgent: string | null; address: string | null },
): Promise<{ id: string; lastSeenAt: Date }> {
  const { rows } = await run<{ id: string; lastSeenAt: Date }>(
    db,
    sql`INSERT INTO user_sessions (token_hash, user_id, csrf_token, user_agent, address)
        VALUES (${s.tokenHash}, ${s.userId}, ${s.csrfToken}, ${s.userAgent}, ${s.address})
        RETURNING id, last_seen_at AS "lastSeenAt"`,
  );
  return rows[0]!;
}

/**
 * The live session of a token, and its last use moved to now when it is more than a minute old (one write a
 * minute a session, not one a request). A session unused for `idleMs` is deleted here and is not found.
 */
export async function useSession(db: Knex, tokenHash: Buffer, idleMs: number): Promise<SessionRow | undefined> {
  const idle = sql`make_interval(secs => ${idleMs / 1000}::float8)`;
  const { rows } = await run<SessionRow & { expired: boolean }>(
    db,
    sql`WITH s AS (
          SELECT s.id, s.last_seen_at < now() - ${idle} AS expired FROM user_sessions s WHERE s.token_hash = ${tokenHash}
        ), gone AS (
          DELETE FROM user_sessions WHERE id IN (SELECT id FROM s WHERE expired)
        ), touched AS (
          UPDATE user_sessions SET last_seen_at = now()
           WHERE id IN (SELECT id FROM s WHERE NOT expired) AND last_seen_at < now() - interval '1 minute'
          RETURNING id, last_seen_at
        )
        SELECT s.id, s.expired, x.user_id AS "userId", u.email, u.account_id AS "accountId", u.role, x.csrf_token AS "csrfToken",
               coalesce((SELECT last_seen_at FROM touched), x.last_seen_at) AS "lastSeenAt",
               u.totp_enabled AS "twoFactor",
               coalesce(CASE WHEN u.account_id IS NULL THEN (SELECT require_two_factor FROM operator_settings) ELSE a.require_two_factor END, false) AS "twoFactorRequired"
          FROM s JOIN user_sessions x ON x.id = s.id JOIN users u ON u.id = x.user_id LEFT JOIN accounts a ON a.id = u.account_id`,
  );
  const row = rows[0];
  if (!row || row.expired) return undefined;
  const { expired: _expired, ...session } = row;
  return session;
}

export async function deleteSession(db: Knex, sessionId: string): Promise<void> {
  await run(db, sql`DELETE FROM user_sessions WHERE id = ${sessionId}`);
}

export async function deleteUserSessions(db: Knex, userId: string): Promise<void> {
  await run(db, sql`DELETE FROM user_sessions WHERE user_id = ${userId}`);
}

/** Ends one session of the user; false when no session of theirs has that id. */
export async function deleteUserSession(db: Knex, userId: string, sessionId: string): Promise<boolean> {
  const { rows } = await run(db, sql`DELETE FROM user_sessions WHERE user_id = ${userId} AND id = ${sessionId} RETURNING id`);
  return rows.length > 0;
}

/** A new password (its argon2id hash) for an active user, and every session of theirs but `keepSessionId` ended. */
export async function replacePassword(db: Knex, userId: string, passwordHash: string, keepSessionId: string): Promise<void> {
  await run(
    db,
    sql`WITH ended AS (DELETE FROM user_sessions WHERE user_id = ${userId} AND id <> ${keepSessionId})
        UPDATE users SET password_hash = ${passwordHash} WHERE id = ${userId} AND password_hash IS NOT NULL`,
  );
}

export async function listUserSessions(
  db: Knex,
  userId: string,
  idleMs: number,
): Promise<{ id: string; createdAt: Date; lastSeenAt: Date; userAgent: string | null; address: string | null }[]> {
  const { rows } = await run<{ id: string; createdAt: Date; lastSeenAt: Date; userAgent: string | null; address: string | null }>(
    db,
    sql`SELECT id, created_at AS "createdAt", last_seen_at AS "lastSeenAt", user_agent AS "userAgent", address
          FROM user_sessions WHERE user_id = ${userId} AND last_seen_at >= now() - make_interval(secs => ${idleMs / 1000}::float8)
         ORDER BY created_at DESC, id DESC`,
  );
  return rows;
}
