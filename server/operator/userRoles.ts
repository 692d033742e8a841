// What a person may do (docs/USERS.md): a session is judged by its user's role as a key by its scope (the table
// in spec/users.tsp, UserRole), and the operations that manage users name the roles they need in `x-roles`.
// Pure: the access gate (http/access.ts) and the users service read it.
export type AccountRole = "owner" | "admin" | "developer" | "viewer";
/** An operator user's role: `operator` does everything the operator API does, `auditor` reads only. */
export type OperatorRole = "operator" | "auditor";
export type UserRole = AccountRole | OperatorRole;

export const isOperatorRole = (role: string): role is OperatorRole => role === "operator" || role === "auditor";

/** The scope each account role has, as a key would. */
export const ROLE_SCOPE: Readonly<Record<AccountRole, "full" | "send" | "read">> = {
  owner: "full",
  admin: "full",
  developer: "full",
  viewer: "read",
};

/** Who changes users: the user's role, a program's `full` key, or the operator. */
export type UserManager = AccountRole | "key" | "operator";

/** Only an owner (or the operator) makes, unmakes or removes an owner; an admin or a key manages the others. */
export function mayManageRole(by: UserManager, role: AccountRole): boolean {
  return by === "owner" || by === "operator" || role !== "owner";
}

/** Passwords: at least this many characters (docs/USERS.md, "Passwords"). */
export const PASSWORD_MIN_LENGTH = 12;

/** Sign-in failures in a row that lock a user, and for how long. */
export const LOCK_AFTER_FAILURES = 10;
export const LOCK_MS = 15 * 60_000;
/** Failures from one client address in a window of LOCK_MS that slow that address down. */
export const ADDRESS_FAILURES = 30;
/** A session ends after this long unused. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** An invitation is good for this long. */
export const INVITATION_MS = 7 * 24 * 3_600_000;
