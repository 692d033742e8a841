// Registering a number: normalised to E.164 and unique in the whole service. The 409 says the number is taken,
// never by whom.
import type { Knex } from "knex";
import { isUniqueViolation } from "../db/errors.js";
import { insertNumber, type NumberRow } from "../db/numbers.js";
import { DomainError } from "../domain/errors.js";
import { requirePhone } from "../domain/phone.js";

export async function registerNumber(
  db: Knex,
  accountId: string,
  input: { phoneNumber: string; name?: string | null },
): Promise<NumberRow> {
  const phoneNumber = requirePhone(input.phoneNumber, "/body/phoneNumber");
  try {
    return await insertNumber(db, accountId, { phoneNumber, name: input.name ?? null });
  } catch (error) {
    if (isUniqueViolation(error, "numbers_phone_number_key")) {
      throw new DomainError("number_taken", `The number ${phoneNumber} is already registered.`);
    }
    throw error;
  }
}
