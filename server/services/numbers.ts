// Numbers an account holds: the operator assigns them; an account adds its own (self-service) only where the
// operator allows it, or while the deployment runs the simulator alone (nothing leads to a carrier, so nothing
// can be sent or received as someone else; the first-start account included). Normalised to E.164 and held by one account in
// the whole service: the 409 says the number is taken, never by whom.
import type { Knex } from "knex";
import type { Account } from "../operator/index.js";
import { carrierReachable } from "../routing/index.js";
import { isUniqueViolation } from "../db/errors.js";
import { insertNumber, type NumberRow } from "../db/numbers.js";
import { DomainError } from "../domain/errors.js";
import { requirePhone } from "../domain/phone.js";

/** Assigns a number to an account (the operator's, or the account's own when self-service is allowed). */
export async function assignNumber(
  db: Knex,
  accountId: string,
  input: { phoneNumber: string; name?: string | null },
  selfService: boolean,
): Promise<NumberRow> {
  const phoneNumber = requirePhone(input.phoneNumber, "/body/phoneNumber");
  try {
    return await insertNumber(db, accountId, { phoneNumber, name: input.name ?? null, selfService });
  } catch (error) {
    if (isUniqueViolation(error, "numbers_phone_number_key")) {
      throw new DomainError("number_taken", `The number ${phoneNumber} is already registered.`);
    }
    throw error;
  }
}

/** POST /api/v1/numbers: an account adds a number itself, where that is allowed (else 403 self_service_disabled). */
export async function registerOwnNumber(
  db: Knex,
  account: Account,
  input: { phoneNumber: string; name?: string | null },
): Promise<NumberRow> {
  // The first-start account is no exception on a carrier deployment: a number it claimed would take a real
  // customer's inbound messages and STOPs.
  const allowed = account.limits?.selfServiceNumbers === true || !(await carrierReachable(db));
  if (!allowed) {
    throw new DomainError(
      "self_service_disabled",
      "This account cannot add numbers itself: the operator assigns them (POST /api/v1/accounts/{accountId}/numbers).",
    );
  }
  return assignNumber(db, account.id, input, true);
}
