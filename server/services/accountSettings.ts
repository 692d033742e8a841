// PATCH /account/settings: the policy settings checked beyond what the schema can say, then stored. A change
// of quietHours or defaultTimeZone releases the messages held by the old rule: their jobs are due at once and
// judged by the new one (turning quiet hours off sends them now).
import { segmentInfo } from "../../common/segments.js";
import type { Knex } from "knex";
import { updateAccountSettings, type AccountSettingsRow } from "../db/accountSettings.js";
import { makeHeldSendsDue } from "../db/jobs/index.js";
import { DomainError } from "../domain/errors.js";
import { requireTimeZone } from "../domain/timeZones.js";
import { retriedTransaction } from "../db/retriedTransaction.js";

/** The most segments an automatic reply may take. */
export const MAX_REPLY_SEGMENTS = 2;

export async function changeAccountSettings(
  db: Knex,
  accountId: string,
  changes: Partial<AccountSettingsRow>,
): Promise<AccountSettingsRow> {
  if (changes.defaultTimeZone !== undefined) requireTimeZone(changes.defaultTimeZone, "/body/defaultTimeZone");
  // An automatic reply is at most two segments: a longer one multiplies what a pumping attack costs.
  const tooLong = (["optOutReply", "optInReply", "helpReply"] as const).filter((k) => {
    const text = changes[k];
    return typeof text === "string" && segmentInfo(text).segments > MAX_REPLY_SEGMENTS;
  });
  if (tooLong.length > 0)
    throw new DomainError(
      "reply_too_long",
      `An automatic reply must fit in ${MAX_REPLY_SEGMENTS} segments (306 GSM-7 or 134 UCS-2 characters).`,
      {
        errors: tooLong.map((k) => ({ path: `/body/${k}`, message: `is longer than ${MAX_REPLY_SEGMENTS} segments` })),
      },
    );
  if (changes.quietHours && changes.quietHours.start === changes.quietHours.end) {
    throw new DomainError(
      "invalid_quiet_hours",
      "quietHours.start and quietHours.end are the same time; a window must hold at least one minute and leave one.",
      {
        errors: [{ path: "/body/quietHours/end", message: "must differ from start" }],
      },
    );
  }
  if (changes.quietHours === undefined && changes.defaultTimeZone === undefined) return updateAccountSettings(db, accountId, changes);
  // One transaction: the released jobs are due (and the workers woken) at the commit that stores the new rule.
  // Run again if ended by a deadlock: the held jobs it makes due are jobs the workers and the pacer write too.
  return retriedTransaction(db, async (tx) => {
    const settings = await updateAccountSettings(tx, accountId, changes);
    await makeHeldSendsDue(tx, accountId);
    return settings;
  });
}
