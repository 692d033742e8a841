// Forgotten passwords (docs/USERS.md, "Passwords"): a link that sets a new password once, within an hour, mailed
// on request where SMTP_URL is set, or issued by an owner or an admin and passed on by hand. A request answers
// the same for every address and in the same time (the mail is sent after the answer, never awaited by it). A
// link is looked up before the password is judged; a weak password leaves it usable; setting one ends every
// session of the user and lifts a sign-in lock on the address.
import { createHash, randomBytes } from "node:crypto";
import { hash } from "@node-rs/argon2";
import type { Knex } from "knex";
import { DomainError, notFound } from "../domain/errors.js";
import { passwordProblem } from "./passwords.js";
import { insertPasswordReset, passwordResetLive, usePasswordReset } from "./passwordResetsTable.js";
import { mayManageRole, type AccountRole, type UserManager } from "./userRoles.js";
import { clearSignInAttempts, findUserByEmail, getUser } from "./usersTable.js";
import { emailKey } from "./users.js";

/** How long a reset link works. */
export const RESET_MS = 3600_000;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

export interface NewPasswordReset {
  token: string;
  expiresAt: Date;
}

/** The dashboard's page a reset link opens. */
export function passwordResetUrl(config: { publicUrl?: string; port: number }, token: string): string {
  const base = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/$/, "");
  return `${base}/dashboard/reset#token=${token}`;
}

/** A new link for an active user; undefined for a user without a password (invited, not yet accepted). */
async function newReset(db: Knex, userId: string): Promise<NewPasswordReset | undefined> {
  const token = `rst_${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + RESET_MS);
  return (await insertPasswordReset(db, userId, sha256(token), expiresAt)) ? { token, expiresAt } : undefined;
}

/**
 * A reset asked for by address: for an active user, a link made and handed to `send` after the answer (the
 * answer must not take longer for a known address: the lookup is the same for every address, the link's
 * insert and the mail are not awaited); nothing for an unknown one or without a way to send it. `send` logs
 * its own failure; a link that could not be stored is simply not sent.
 */
export async function requestPasswordReset(
  db: Knex,
  email: string,
  send: ((to: string, reset: NewPasswordReset) => Promise<unknown>) | undefined,
): Promise<void> {
  const user = await findUserByEmail(db, emailKey(email));
  if (!user || !send) return;
  void newReset(db, user.id)
    .then((reset) => reset && send(user.email, reset))
    .catch(() => undefined);
}

/** An owner or an admin (or a `full` key) issues a link for a user of the account, shown once. */
export async function issuePasswordReset(db: Knex, accountId: string, userId: string, by: UserManager): Promise<NewPasswordReset> {
  const user = await getUser(db, accountId, userId);
  if (!user) throw notFound("User");
  if (!mayManageRole(by, user.role as AccountRole))
    throw new DomainError("insufficient_role", "Only an owner issues a reset link for an owner.");
  const reset = await newReset(db, userId);
  if (!reset) throw new DomainError("user_invited", "This user has not accepted their invitation: there is no password to reset.");
  return reset;
}

/** Sets the password of a live link's user; 404 `reset_invalid` for a link unknown, used or expired. */
export async function confirmPasswordReset(db: Knex, token: string, password: string): Promise<void> {
  const tokenHash = sha256(token);
  const invalid = () => new DomainError("reset_invalid", "The reset link is unknown, used or expired: ask for a new one.");
  if (!(await passwordResetLive(db, tokenHash))) throw invalid();
  const problem = passwordProblem(password);
  if (problem)
    throw new DomainError("weak_password", `The password ${problem}.`, { errors: [{ path: "/body/password", message: problem }] });
  const user = await usePasswordReset(db, tokenHash, await hash(password));
  if (!user) throw invalid();
  await clearSignInAttempts(db, user.email);
}
