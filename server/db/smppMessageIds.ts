// Short ids of messages submitted over SMPP by clients that want them (messageIdFormat hex or decimal; the
// column messages.smpp_id, migration 045): a number of the sequence smpp_message_ids, under 2^63.
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

/** Gives the message its short id; returns it (as a decimal string: it may not fit a JS number). */
export async function giveSmppId(db: Knex, accountId: string, messageId: string): Promise<string> {
  const { rows } = await run<{ smppId: string }>(
    db,
    sql`UPDATE messages SET smpp_id = nextval('smpp_message_ids')
         WHERE account_id = ${accountId} AND id = ${messageId} RETURNING smpp_id::text AS "smppId"`,
  );
  return rows[0]!.smppId;
}
