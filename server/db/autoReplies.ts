import type { Knex } from "knex";
import { run, sql } from "./sql.js";
import type { KeywordKind } from "../domain/keywords.js";

/** Seconds between two automatic replies of one kind to one number. */
export const AUTO_REPLY_INTERVAL_S = 60;

/**
 * Takes the right to send one auto-reply of `kind` to `phone` now: true unless one went out within the interval.
 * One conditional upsert, so two inbound messages at once cannot both take it.
 */
export async function claimAutoReply(db: Knex, accountId: string, phone: string, kind: KeywordKind): Promise<boolean> {
  const { rows } = await run(
    db,
    sql`INSERT INTO auto_replies (account_id, phone, kind, last_sent_at) VALUES (${accountId}, ${phone}, ${kind}, now())
        ON CONFLICT (account_id, phone, kind) DO UPDATE SET last_sent_at = now()
          WHERE auto_replies.last_sent_at <= now() - make_interval(secs => ${AUTO_REPLY_INTERVAL_S})
        RETURNING 1`,
  );
  return rows.length > 0;
}
