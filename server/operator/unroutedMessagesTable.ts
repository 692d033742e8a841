// The unrouted_messages table (migration 024): inbound messages to a number no account holds, for the operator.
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import type { NewInboundMessage } from "../db/messages/index.js";
import { cursorAtColumn, newestFirstPage } from "../db/newestFirstPage.js";
import { run, sql } from "../db/sql.js";

/** An unrouted message is stored with what an inbound one is, and no account. */
export type UnroutedMessageRow = NewInboundMessage & { createdAt: Date };

const columns = [
  "id",
  "sender as from",
  "recipient as to",
  "body",
  "segments",
  "encoding",
  "incomplete",
  "received_at as receivedAt",
  "created_at as createdAt",
];

export async function insertUnroutedMessage(db: Knex, m: NewInboundMessage): Promise<void> {
  await db("unrouted_messages").insert({
    id: m.id,
    sender: m.from,
    recipient: m.to,
    body: m.body,
    segments: m.segments,
    encoding: m.encoding,
    incomplete: m.incomplete,
    received_at: m.receivedAt,
  });
}

export async function listUnroutedMessages(
  db: Knex,
  opts: { after?: CursorKey; limit: number },
): Promise<(UnroutedMessageRow & CursorKey)[]> {
  const query = db("unrouted_messages").select([...columns, cursorAtColumn(db, "created_at")]);
  return newestFirstPage(query, opts.after, opts.limit);
}

/** Deletes up to `limit` unrouted messages created before `before`, oldest first; returns how many. */
export async function deleteOldUnroutedMessages(db: Knex, before: Date, limit: number): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`DELETE FROM unrouted_messages WHERE id = ANY(ARRAY(
          SELECT id FROM unrouted_messages WHERE created_at < ${before} ORDER BY created_at, id LIMIT ${limit}))`,
  );
  return rowCount;
}
