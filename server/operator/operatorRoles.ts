// An operator user's role changed (PATCH /operator-users/{userId}, docs/USERS.md "Operator users"): `operator`
// does everything the operator API does, `auditor` reads only (the access gate, http/access.ts, refuses an
// auditor's changes). Made an auditor, a person keeps their sessions, which read only from their next request
// (the role is read on every request). The account keys an operator user makes record no maker (docs/USERS.md),
// so there is no key of theirs to cap.
import type { Knex } from "knex";
import { notFound } from "../domain/errors.js";
import type { OperatorRole } from "./userRoles.js";
import { lockOperatorUser, updateUserRole, type UserRow } from "./usersTable.js";

export async function changeOperatorUserRole(db: Knex, userId: string, role: OperatorRole): Promise<UserRow> {
  return db.transaction(async (tx) => {
    if (!(await lockOperatorUser(tx, userId))) throw notFound("User");
    return updateUserRole(tx, userId, role);
  });
}
