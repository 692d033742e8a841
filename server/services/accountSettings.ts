// PATCH /account/settings: the policy settings checked beyond what the schema can say, then stored.
import type { Knex } from "knex";
import { updateAccountSettings, type AccountSettingsRow } from "../db/accountSettings.js";
import { ApiError } from "../domain/errors.js";
import { requireTimeZone } from "../domain/timeZones.js";

export async function changeAccountSettings(
  db: Knex,
  accountId: string,
  changes: Partial<AccountSettingsRow>,
): Promise<AccountSettingsRow> {
  if (changes.defaultTimeZone !== undefined) requireTimeZone(changes.defaultTimeZone, "/body/defaultTimeZone");
  if (changes.quietHours && changes.quietHours.start === changes.quietHours.end) {
    throw new ApiError(
      "invalid_quiet_hours",
      "quietHours.start and quietHours.end are the same time; a window must hold at least one minute and leave one.",
      {
        errors: [{ path: "/body/quietHours/end", message: "must differ from start" }],
      },
    );
  }
  return updateAccountSettings(db, accountId, changes);
}
