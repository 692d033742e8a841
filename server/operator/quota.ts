// The daily segment quota (an operator's limit per account): segments counted when a request is accepted, per
// UTC day, in the request's transaction, so a refused or failed request counts nothing. An account without a
// quota, and a test key, count nothing at all (no statement). At 80 % the account's subscribed webhooks get
// `account.quota_warning`, once a day.
import type { Knex } from "knex";
import type { Account } from "./accountsTable.js";
import { chargeDailySegments } from "./dailyUsageTable.js";
import { insertEventDeliveries } from "../db/webhookDeliveries.js";
import { DomainError } from "../domain/errors.js";
import { quotaWarningBody } from "../domain/events.js";

/** Counts `segments` against the account's quota, or refuses the whole request (429 quota_exceeded). */
export async function chargeQuota(tx: Knex, account: Account, segments: number, opts: { test: boolean }): Promise<void> {
  const quota = account.limits?.dailySegmentQuota ?? null;
  if (quota === null || opts.test || segments === 0) return;
  const charge = await chargeDailySegments(tx, account.id, segments, quota);
  if (!charge.allowed) {
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    throw new DomainError(
      "quota_exceeded",
      `This request needs ${segments} segments; the account has accepted ${charge.segmentsAccepted} of its ${quota} today (UTC). Nothing was accepted.`,
      { retryAfterSeconds: Math.max(1, Math.ceil((midnight - now.getTime()) / 1000)) },
    );
  }
  if (charge.warn) {
    const body = quotaWarningBody({ at: new Date(), day: charge.day, segmentsAccepted: charge.segmentsAccepted, dailySegmentQuota: quota });
    await insertEventDeliveries(tx, account.id, { event: "account.quota_warning", body, messageId: null, seq: 1 });
  }
}

/** Whether accepting a request needs a transaction for the quota (the charge and the insert commit together). */
export const countsQuota = (account: Account, test: boolean): boolean => !test && (account.limits?.dailySegmentQuota ?? null) !== null;
