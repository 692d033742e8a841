// The inbox's threads (docs/API.md, "Conversations"): one row per number that sent the account messages, kept by
// the inbound path in the transaction that stores each message (recordInbound), and marked read by the API. A
// page is a keyset walk of conversations_account_page_idx (last_received_at DESC, id DESC), the same cursor
// shape as every list; a thread that receives a message while someone pages moves to the front and is not shown
// twice in the walk after it.
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { isOptedOutSql } from "./optOuts.js";
import { run, sql } from "./sql.js";

export interface ConversationRow {
  phone: string;
  lastMessageId: string;
  lastBody: string;
  lastReceivedAt: Date;
  received: number;
  unread: number;
  readAt: Date | null;
  optedOut: boolean;
}

const COLUMNS = sql`c.phone, c.last_message_id AS "lastMessageId", c.last_body AS "lastBody",
  c.last_received_at AS "lastReceivedAt", c.received, c.unread, c.read_at AS "readAt",
  ${isOptedOutSql("c.account_id", "c.phone")} AS "optedOut"`;

/**
 * Counts an inbound message in its sender's thread (made by its first message): it becomes the thread's latest
 * unless a later one was stored first (carriers deliver out of order), and it is unread. One upsert, in the
 * transaction that stores the message.
 */
export async function recordInbound(
  tx: Knex,
  accountId: string,
  m: { id: string; from: string; body: string; receivedAt: Date },
): Promise<void> {
  await run(
    tx,
    sql`INSERT INTO conversations AS c (account_id, phone, last_message_id, last_body, last_received_at, received, unread)
        VALUES (${accountId}, ${m.from}, ${m.id}, ${m.body}, ${m.receivedAt}, 1, 1)
        ON CONFLICT (account_id, phone) DO UPDATE SET
          last_message_id = CASE WHEN EXCLUDED.last_received_at >= c.last_received_at THEN EXCLUDED.last_message_id ELSE c.last_message_id END,
          last_body = CASE WHEN EXCLUDED.last_received_at >= c.last_received_at THEN EXCLUDED.last_body ELSE c.last_body END,
          last_received_at = GREATEST(c.last_received_at, EXCLUDED.last_received_at),
          received = c.received + 1,
          unread = c.unread + 1`,
  );
}

/** A page of the account's threads, the latest received first; only those with unread messages when asked. */
export async function listConversations(
  db: Knex,
  accountId: string,
  opts: { unread?: boolean; after?: CursorKey; limit: number },
): Promise<(ConversationRow & CursorKey)[]> {
  const after = opts.after ? sql`AND (c.last_received_at, c.id) < (${opts.after.cursorAt}::timestamptz, ${opts.after.id}::uuid)` : sql``;
  const { rows } = await run<ConversationRow & CursorKey>(
    db,
    sql`SELECT ${COLUMNS}, c.id,
               to_char(c.last_received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
          FROM conversations c
         WHERE c.account_id = ${accountId} ${opts.unread ? sql`AND c.unread > 0` : sql``} ${after}
         ORDER BY c.last_received_at DESC, c.id DESC
         LIMIT ${opts.limit}`,
  );
  return rows;
}

/** Marks the thread read (unread 0, read_at now); undefined when the number has sent the account nothing. */
export async function markConversationRead(db: Knex, accountId: string, phone: string): Promise<ConversationRow | undefined> {
  const { rows } = await run<ConversationRow>(
    db,
    sql`WITH c AS (UPDATE conversations SET unread = 0, read_at = now()
                    WHERE account_id = ${accountId} AND phone = ${phone} RETURNING *)
        SELECT ${COLUMNS} FROM c`,
  );
  return rows[0];
}
