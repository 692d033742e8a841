import type { Knex } from "knex";
import { run, sql } from "./sql.js";
import type { KeywordKind } from "../domain/keywords.js";

/** Seconds between two automatic replies of one kind to one number: HELP is answered once a day. */
export const AUTO_REPLY_INTERVAL_S: Record<KeywordKind, number> = { opt_out: 60, opt_in: 60, help: 86_400 };
/** Automatic replies one number may get in a UTC day, whatever the keywords. */
export const AUTO_REPLIES_PER_NUMBER_PER_DAY = 5;

const DAY = sql`date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
const HOUR = sql`date_trunc('hour', now())`;

/**
 * Takes the right to send one auto-reply of `kind` to `phone` now: false when one of that kind went out within
 * its interval, when the number has had AUTO_REPLIES_PER_NUMBER_PER_DAY today, or when the account has sent
 * `perHour` this hour. Runs in the caller's transaction: the first statement locks the two counters (made at 0),
 * so concurrent claims of one account queue there and none can take the last reply twice; nothing is counted
 * unless every check passes.
 */
export async function claimAutoReply(
  tx: Knex.Transaction,
  accountId: string,
  phone: string,
  kind: KeywordKind,
  perHour: number,
): Promise<boolean> {
  const { rows } = await run<{ phone: string; sent: number }>(
    tx,
    sql`INSERT INTO auto_reply_counts (account_id, phone, window_start, sent)
        VALUES (${accountId}, ${phone}, ${DAY}, 0), (${accountId}, '', ${HOUR}, 0)
        ON CONFLICT (account_id, phone, window_start) DO UPDATE SET sent = auto_reply_counts.sent
        RETURNING phone, sent`,
  );
  const sent = (p: string) => rows.find((r) => r.phone === p)!.sent;
  if (sent(phone) >= AUTO_REPLIES_PER_NUMBER_PER_DAY || sent("") >= perHour) return false;
  const { rows: claimed } = await run(
    tx,
    sql`INSERT INTO auto_replies (account_id, phone, kind, last_sent_at) VALUES (${accountId}, ${phone}, ${kind}, now())
        ON CONFLICT (account_id, phone, kind) DO UPDATE SET last_sent_at = now()
          WHERE auto_replies.last_sent_at <= now() - make_interval(secs => ${AUTO_REPLY_INTERVAL_S[kind]})
        RETURNING 1`,
  );
  if (claimed.length === 0) return false;
  await run(
    tx,
    sql`WITH counted AS (
          UPDATE auto_reply_counts SET sent = sent + 1
           WHERE account_id = ${accountId} AND ((phone = ${phone} AND window_start = ${DAY}) OR (phone = '' AND window_start = ${HOUR}))
        )
        DELETE FROM auto_reply_counts
         WHERE account_id = ${accountId} AND phone IN (${phone}, '') AND window_start < ${DAY} - interval '1 day'`,
  );
  return true;
}
