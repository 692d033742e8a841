// Two-factor sign-in (docs/USERS.md): TOTP (RFC 6238) through otpauth, each step's code taken once, and ten
// recovery codes (only their SHA-256 kept); turning it off counts as a sign-in attempt.
import { createHash, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import type { Knex } from "knex";
import { DomainError } from "../domain/errors.js";
import { ATTEMPTS, locked } from "./signInLock.js";
import { LOCK_MS } from "./userRoles.js";
import { disableTotp, enableTotp, setPendingTotp, takeRecoveryCode, takeTotpStep, totpState } from "./totpTable.js";
import { accountRequiresTwoFactor, clearSignInAttempts, recordAddressFailure, takeSignInAttempt } from "./usersTable.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

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
export async function secondFactor(
  db: Knex,
  user: { id: string; totpSecret: string | null },
  attempt: { totp?: string; recoveryCode?: string },
) {
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
  if (await accountRequiresTwoFactor(db, user.accountId))
    throw new DomainError(
      "two_factor_required",
      user.accountId === null
        ? "The operator requires two-factor sign-in of its users: it stays on while it does."
        : "This account requires two-factor sign-in: it stays on while the owner requires it.",
    );
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
