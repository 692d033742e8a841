// A user's two-factor sign-in state in the users table (migration 052): the secret, the last time step taken
// (a code is never taken twice) and the recovery codes' hashes. SQL only; the rules are twoFactor.ts's.
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";

/** A user's two-factor state. */
export interface TotpState {
  secret: string | null;
  enabled: boolean;
}

export async function totpState(db: Knex, userId: string): Promise<TotpState | undefined> {
  const { rows } = await run<TotpState>(db, sql`SELECT totp_secret AS secret, totp_enabled AS enabled FROM users WHERE id = ${userId}`);
  return rows[0];
}

/** A new secret for a user whose two-factor sign-in is off; false when it is on. */
export async function setPendingTotp(db: Knex, userId: string, secret: string): Promise<boolean> {
  const { rows } = await run(db, sql`UPDATE users SET totp_secret = ${secret} WHERE id = ${userId} AND NOT totp_enabled RETURNING 1`);
  return rows.length === 1;
}

/** Turns two-factor sign-in on with the step of the code that confirmed it; false when on already or replayed. */
export async function enableTotp(db: Knex, userId: string, step: number, recoveryHashes: string[]): Promise<boolean> {
  const { rows } = await run(
    db,
    sql`UPDATE users SET totp_enabled = true, totp_last_step = ${step}, recovery_codes = ${recoveryHashes}::text[]
         WHERE id = ${userId} AND NOT totp_enabled AND totp_secret IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < ${step})
        RETURNING 1`,
  );
  return rows.length === 1;
}

/** Takes a code's time step: true once per step and only forward (a code is never taken twice). */
export async function takeTotpStep(db: Knex, userId: string, step: number): Promise<boolean> {
  const { rows } = await run(
    db,
    sql`UPDATE users SET totp_last_step = ${step} WHERE id = ${userId} AND (totp_last_step IS NULL OR totp_last_step < ${step}) RETURNING 1`,
  );
  return rows.length === 1;
}

/** Uses up a recovery code (its hash); false when it is not one of the user's. */
export async function takeRecoveryCode(db: Knex, userId: string, hash: string): Promise<boolean> {
  const { rows } = await run(
    db,
    sql`UPDATE users SET recovery_codes = array_remove(recovery_codes, ${hash}::text) WHERE id = ${userId} AND ${hash}::text = ANY(recovery_codes) RETURNING 1`,
  );
  return rows.length === 1;
}

export async function disableTotp(db: Knex, userId: string): Promise<void> {
  await run(
    db,
    sql`UPDATE users SET totp_enabled = false, totp_secret = NULL, totp_last_step = NULL, recovery_codes = '{}' WHERE id = ${userId}`,
  );
}
