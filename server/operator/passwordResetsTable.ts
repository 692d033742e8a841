// The password_resets table (migration 065): reset links by the sha256 of their token.
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";

/** A new link for an active user (expired links of theirs deleted); undefined when the user has no password yet. */
export async function insertPasswordReset(db: Knex, userId: string, tokenHash: Buffer, expiresAt: Date): Promise<boolean> {
  const { rows } = await run<{ userId: string }>(
    db,
    sql`WITH expired AS (DELETE FROM password_resets WHERE user_id = ${userId} AND expires_at <= now())
        INSERT INTO password_resets (token_hash, user_id, expires_at)
        SELECT ${tokenHash}, id, ${expiresAt} FROM users WHERE id = ${userId} AND password_hash IS NOT NULL
        RETURNING user_id AS "userId"`,
  );
  return rows.length > 0;
}

/** Whether a link is live (known, unexpired). */
export async function passwordResetLive(db: Knex, tokenHash: Buffer): Promise<boolean> {
  const { rows } = await run(db, sql`SELECT 1 FROM password_resets WHERE token_hash = ${tokenHash} AND expires_at > now()`);
  return rows.length > 0;
}

/**
 * Uses a live link: sets its user's password, lifts a sign-in lock on it, ends every session of the user and
 * deletes every link of theirs, in one statement. Returns the user; undefined when the link was not live
 * (used meanwhile, or expired).
 */
export async function usePasswordReset(
  db: Knex,
  tokenHash: Buffer,
  passwordHash: string,
): Promise<{ id: string; email: string } | undefined> {
  const { rows } = await run<{ id: string; email: string }>(
    db,
    sql`WITH link AS (
          SELECT user_id FROM password_resets WHERE token_hash = ${tokenHash} AND expires_at > now() FOR UPDATE
        ), used AS (
          DELETE FROM password_resets WHERE user_id IN (SELECT user_id FROM link)
        ), ended AS (
          DELETE FROM user_sessions WHERE user_id IN (SELECT user_id FROM link)
        )
        UPDATE users SET password_hash = ${passwordHash}, failed_sign_ins = 0, locked_until = NULL
         WHERE id IN (SELECT user_id FROM link) AND password_hash IS NOT NULL
        RETURNING id, email`,
  );
  return rows[0];
}
