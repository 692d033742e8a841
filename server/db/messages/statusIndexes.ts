// How a statement finds messages by status (migration 064). No index of messages holds `status`, so that the
// claim and the receipt are HOT updates; each status a list asks for is reached through a column set once,
// in the step that writes index entries anyway, and the statement names that column's predicate beside the
// status so the planner can use the partial index:
// - scheduled, sending: sent_at, failed_at, cancelled_at all null (messages_pending_page_idx);
// - failed, undelivered: failed_at set (messages_failed_page_idx);
// - cancelled: cancelled_at set (messages_cancelled_page_idx);
// - sent, delivered, received: no index of their own (almost every message is one): the account's page index.
import type { StoredStatus } from "../../domain/messageStatus.js";
import { sql, type Sql } from "../sql.js";

const col = (alias: string, column: string) => sql.raw(alias ? `${alias}.${column}` : column);

/** `alias` is an outbound message not yet sent, failed or cancelled: scheduled or sending. */
export const pendingSql = (alias: string): Sql =>
  sql`${col(alias, "direction")} = 'outbound' AND ${col(alias, "sent_at")} IS NULL AND ${col(alias, "failed_at")} IS NULL AND ${col(alias, "cancelled_at")} IS NULL`;

const failedSql = (alias: string): Sql => sql`${col(alias, "failed_at")} IS NOT NULL`;
const cancelledSql = (alias: string): Sql => sql`${col(alias, "cancelled_at")} IS NOT NULL`;
const INDEXED_BY: Partial<Record<StoredStatus, (alias: string) => Sql>> = {
  scheduled: pendingSql,
  sending: pendingSql,
  failed: failedSql,
  undelivered: failedSql,
  cancelled: cancelledSql,
};

/** `alias`'s status is one of `statuses`, with the predicate of the index that finds them when they share one. */
export function statusesSql(alias: string, statuses: readonly StoredStatus[]): Sql {
  const is = sql`${col(alias, "status")} = ANY(${statuses}::text[])`;
  const indexes = new Set(statuses.map((s) => INDEXED_BY[s]));
  const [only] = indexes;
  return indexes.size === 1 && only ? sql`${is} AND ${only(alias)}` : is;
}
