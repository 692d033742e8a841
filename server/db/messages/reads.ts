// Reads of messages: one by key, a page of a list, and the lookups of the send and receipt paths.
import { MESSAGE_FACTS_SQL, type MessageFactsRow } from "./rows.js";
import type { Knex } from "knex";
import type { CursorKey } from "../../domain/cursor.js";
import { byAccountKeysSql, statusInSql } from "../byIdFilters.js";
import { run, sql } from "../sql.js";
import { cursorAtColumn, newestFirstPage } from "../newestFirstPage.js";
import { searchPage, type MessageSearch } from "./search.js";
import { statusesSql } from "./statusIndexes.js";
import {
  byKeys,
  columns,
  returning,
  returningSql,
  type MessageKey,
  type MessageRow,
  type OwnedMessageRow,
  type StoredStatus,
} from "./rows.js";

export async function getMessage(db: Knex, accountId: string, messageId: string): Promise<MessageRow | undefined> {
  return db("messages").where({ account_id: accountId, id: messageId }).first(columns);
}

/** What a list of an account's messages is narrowed to (each by an index where one serves it). */
export interface MessageListFilters {
  statuses?: StoredStatus[];
  campaignId?: string;
  /** Only test messages (true) or only real ones (false). */
  test?: boolean;
  batchId?: string;
  reference?: string;
  direction?: MessageRow["direction"];
  /** The conversation with this number: outbound to it, inbound from it. */
  phone?: string;
  /** Created at or after. */
  since?: string;
  /** Created before. */
  until?: string;
}

/** The account's messages with `filters`, after the cursor's key, newest first; not yet limited. */
function messageList(db: Knex, accountId: string, filters: MessageListFilters, after: CursorKey | undefined) {
  const query = db("messages").where({ account_id: accountId }).select(columns, cursorAtColumn(db, "created_at"));
  if (filters.statuses) query.where(statusesSql("", filters.statuses).forBuilder(db));
  if (filters.campaignId) query.where({ campaign_id: filters.campaignId });
  if (filters.test !== undefined) query.where({ test: filters.test });
  if (filters.batchId) query.where({ batch_id: filters.batchId });
  if (filters.reference) query.where({ reference: filters.reference });
  if (filters.direction) query.where({ direction: filters.direction });
  if (filters.since) query.where("created_at", ">=", filters.since);
  if (filters.until) query.where("created_at", "<", filters.until);
  if (filters.phone) {
    // Each side matches a partial index: messages_recipient_page_idx, messages_sender_page_idx.
    query.where(
      sql`((direction = 'outbound' AND recipient = ${filters.phone}) OR (direction = 'inbound' AND sender = ${filters.phone}))`.forBuilder(
        db,
      ),
    );
  }
  return newestFirstPage(query, after, Number.MAX_SAFE_INTEGER);
}

export async function listMessages(
  db: Knex,
  accountId: string,
  opts: MessageListFilters & { after?: CursorKey; limit: number },
): Promise<(MessageRow & CursorKey)[]> {
  return messageList(db, accountId, opts, opts.after).limit(opts.limit);
}

/** A page of a search among the list's messages (search.ts: at most `scanRows` looked at per page). */
export async function searchMessages(
  db: Knex,
  accountId: string,
  opts: MessageListFilters & { search: MessageSearch; after?: CursorKey; limit: number; scanRows: number },
) {
  return searchPage(db, messageList(db, accountId, opts, opts.after), opts.search, opts);
}

/**
 * A message by key, or by the provider's id for it. A carrier's receipt names only its own id, not the account:
 * `carrierLookup` is a message found that way (by its SMPP segment), looked up without one (docs/SCALING.md:
 * a lookup table from carrier id to account under Citus).
 */
export async function findMessage(
  db: Knex,
  where: MessageKey | { carrierLookup: string } | { providerMessageId: string },
): Promise<OwnedMessageRow | undefined> {
  const query = db("messages").first(returning);
  if ("id" in where) return query.where({ account_id: where.accountId, id: where.id });
  if ("carrierLookup" in where) return query.where({ id: where.carrierLookup });
  // By the key's index (migration 069), then the exact id.
  return query
    .where(sql`carrier_id_key(provider_message_id) = carrier_id_key(${where.providerMessageId}::text)`.forBuilder(db))
    .where({ provider_message_id: where.providerMessageId });
}

/**
 * Messages by key, by id found through their SMPP segments (`carrierLookups`, as findMessage's), or by the
 * provider's ids, each of the account in the same place of `accountIds` when the caller knows them (see
 * findMessage).
 */
export async function findMessages(
  db: Knex,
  where: { keys: MessageKey[] } | { carrierLookups: string[] } | { providerMessageIds: string[]; accountIds?: string[] },
): Promise<OwnedMessageRow[]> {
  if ("keys" in where) return byKeys(db, where.keys).select(returning);
  if ("carrierLookups" in where)
    return where.carrierLookups.length === 0
      ? []
      : db("messages")
          .where(sql`id = ANY(${where.carrierLookups}::uuid[])`.forBuilder(db))
          .select(returning);
  if (where.providerMessageIds.length === 0) return [];
  // One index probe per provider id: a LATERAL subquery the planner cannot flatten (OFFSET 0). Written as
  // `provider_message_id IN (…)`, a young table (no statistics: a fresh install's first burst, a benchmark) was
  // read whole for every batch of reports. The account is
  // tested as `(… = …) IS TRUE`, which no index can serve: written plainly, on that young table each probe also
  // read messages_account_page_idx (a bitmap AND through the account's whole history); as pairs, the planner
  // made the same join of it (test/engine/young-table-plans.test.ts).
  const { rows } = await run<OwnedMessageRow>(
    db,
    sql`SELECT ${sql.raw(returningSql)}
          FROM unnest(${where.providerMessageIds}::text[], ${where.accountIds ?? []}::uuid[]) AS p(provider_message_id, account_id)
         CROSS JOIN LATERAL (
           SELECT * FROM messages x
            WHERE carrier_id_key(x.provider_message_id) = carrier_id_key(p.provider_message_id)
              AND x.provider_message_id = p.provider_message_id
              ${where.accountIds ? sql`AND (x.account_id = p.account_id) IS TRUE` : sql``}
           OFFSET 0) m`,
  );
  return rows;
}

/** Of the given messages, those still `scheduled` whose validity has ended (on the database's clock). */
export async function scheduledPastValidity(db: Knex, keys: MessageKey[]): Promise<MessageFactsRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<MessageFactsRow>(
    db,
    sql`SELECT ${MESSAGE_FACTS_SQL}
          FROM messages m WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", ["scheduled"])} AND valid_until <= now()`,
  );
  return rows;
}
