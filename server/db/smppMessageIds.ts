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

/** A fresh short id (for a concatenated message's parts, answered before the message exists). */
export async function nextSmppId(db: Knex): Promise<string> {
  const { rows } = await run<{ smppId: string }>(db, sql`SELECT nextval('smpp_message_ids')::text AS "smppId"`);
  return rows[0]!.smppId;
}

/** Gives the message the short id its parts answered with. */
export async function setSmppId(db: Knex, accountId: string, messageId: string, smppId: string): Promise<void> {
  await run(db, sql`UPDATE messages SET smpp_id = ${smppId}::bigint WHERE account_id = ${accountId} AND id = ${messageId}`);
}
