// Who requires two-factor sign-in of whom (docs/USERS.md, "Two-factor sign-in"): an account's owner of the
// account's users, the operator of the operator users. Sign-in and every session read the requirement
// (usersTable.ts); turning it on never locks out the person who does it.
import type { Knex } from "knex";
import { DomainError } from "../domain/errors.js";
import { setAccountRequiresTwoFactor, setOperatorRequiresTwoFactor, type SessionRow } from "./usersTable.js";

const insufficientRole = (detail: string) => new DomainError("insufficient_role", detail);

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

/**
 * The operator requires two-factor sign-in of every operator user, or stops requiring it. With an operator key,
 * as it is asked; an operator user, signed in, only with it on for themselves (409 `two_factor_off`).
 */
export async function setOperatorTwoFactorRequirement(db: Knex, by: SessionRow | undefined, required: boolean): Promise<boolean> {
  if (required && by && !by.twoFactor)
    throw new DomainError("two_factor_off", "Turn on two-factor sign-in for yourself first (Your sign-in), then require it of everyone.");
  await setOperatorRequiresTwoFactor(db, required);
  return required;
}
