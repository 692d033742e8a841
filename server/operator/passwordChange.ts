// A person changes their own password (docs/USERS.md, "Passwords"). The current password proves it is them:
// each try is counted as a sign-in attempt of their address before it is verified (ten lock it, as at sign-in),
// and a wrong one slows the client address down. The new one is judged as any password is. Every other
// session of theirs ends in the statement that stores it: whoever else held one signs in again.
import { hash, verify } from "@node-rs/argon2";
import type { Knex } from "knex";
import { DomainError } from "../domain/errors.js";
import { passwordProblem } from "./passwords.js";
import { ATTEMPTS, locked } from "./signInLock.js";
import { LOCK_MS } from "./userRoles.js";
import { clearSignInAttempts, findUserByEmail, recordAddressFailure, replacePassword, takeSignInAttempt } from "./usersTable.js";

export async function changePassword(
  db: Knex,
  session: { id: string; userId: string; email: string },
  change: { currentPassword: string; newPassword: string },
  address: string,
): Promise<void> {
  const taken = await takeSignInAttempt(db, session.email, ATTEMPTS);
  if (!taken.taken) throw locked(taken.retryAfterSeconds);
  const user = await findUserByEmail(db, session.email);
  if (!user?.passwordHash || user.id !== session.userId || !(await verify(user.passwordHash, change.currentPassword))) {
    await recordAddressFailure(db, address, LOCK_MS);
    throw new DomainError("wrong_password", "The current password is wrong: nothing changed.", {
      errors: [{ path: "/body/currentPassword", message: "is not your password" }],
    });
  }
  await clearSignInAttempts(db, session.email);
  const problem = passwordProblem(change.newPassword);
  if (problem)
    throw new DomainError("weak_password", `The password ${problem}.`, { errors: [{ path: "/body/newPassword", message: problem }] });
  await replacePassword(db, session.userId, await hash(change.newPassword), session.id);
}
