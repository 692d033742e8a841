// How sign-in attempts are counted (docs/USERS.md, "Sign-in"): per address signed in with, a user's or not,
// before the password or code is judged; shared by sign-in (users.ts) and turning two-factor off (twoFactor.ts).
import { DomainError } from "../domain/errors.js";
import { LOCK_AFTER_FAILURES, LOCK_MS } from "./userRoles.js";

/** 429 sign_in_locked, with when to try again. */
export const locked = (seconds: number) =>
  new DomainError("sign_in_locked", `Too many failed sign-ins: try again in ${seconds} s.`, { retryAfterSeconds: Math.max(1, seconds) });

/** How sign-in attempts are counted per address (a user's or not): ten within 15 minutes lock it for 15. */
export const ATTEMPTS = { lockAfter: LOCK_AFTER_FAILURES, lockMs: LOCK_MS, windowMs: LOCK_MS };
