// The messages waiting for throughput (the table throttled_sends): one row each while it waits its turn (released_at null),
// then paid (released_at, send_at: the pacer took its tokens and made its job due at send_at) until the send
// path sends it and deletes the row. Release order: priority (0 high … 2 low), scheduled_at, message_id.
// Times cross this module as seconds since the epoch (float8) where a bucket's arithmetic uses them.
import type { Knex } from "knex";
import { type Priority } from "../domain/sendingPolicy.js";
import type { QueueScope } from "../domain/throughput.js";
import { byAccountKeysSql } from "./byIdFilters.js";
import type { MessageKey } from "./messages/index.js";
import { run, sql } from "./sql.js";
import { jobPrioritySql } from "./jobs/priorities.js";

const PRIORITIES: Priority[] = ["high", "normal", "low"];

export interface ThrottledSend {
  messageId: string;
  accountId: string;
  priority: Priority;
  scheduledAt: Date;
  segments: number;
  validUntil: Date | null;
  /** Already paid for a slot ahead (seconds since the epoch): its job is snoozed until then. */
  sendAt?: number;
}

/**
 * Puts messages in the queue, waiting or already paid for a slot. One already waiting keeps its place; one
 * already paid and now held again waiting is put back to waiting (its tokens are lost, never spent twice): its
 * job is about to be snoozed far ahead by the caller, so a payment left on it would only be found at the job's
 * next safety wake.
 */
export async function holdThrottledSends(tx: Knex, rows: ThrottledSend[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <T>(pick: (r: ThrottledSend) => T) => rows.map(pick);
  await run(
    tx,
    sql`INSERT INTO throttled_sends (message_id, account_id, priority, scheduled_at, segments, valid_until, released_at, send_at)
        SELECT r.message_id, r.account_id, ${jobPrioritySql(sql`r.priority`)}, r.scheduled_at, r.segments, r.valid_until,
               CASE WHEN r.send_at IS NOT NULL THEN now() END, to_timestamp(r.send_at)
          FROM unnest(${column((r) => r.messageId)}::uuid[], ${column((r) => r.accountId)}::uuid[], ${column((r) => r.priority)}::text[],
                      ${column((r) => r.scheduledAt.toISOString())}::timestamptz[], ${column((r) => r.segments)}::int[],
                      ${column((r) => r.validUntil?.toISOString() ?? null)}::timestamptz[], ${column((r) => r.sendAt ?? null)}::float8[])
            AS r(message_id, account_id, priority, scheduled_at, segments, valid_until, send_at)
        ON CONFLICT (message_id) DO UPDATE SET released_at = EXCLUDED.released_at, send_at = EXCLUDED.send_at, held_at = now()
         WHERE throttled_sends.released_at IS NOT NULL OR EXCLUDED.released_at IS NOT NULL`,
  );
}

/**
 * Of these messages, those paid for a slot no more than `graceSeconds` ago (or still ahead): their rows are deleted
 * (a payment is used once) and they are returned. A payment older than that is deleted too but not returned: a
 * message that comes that late (its workers overloaded, or down) pays again at its turn, so slots paid long ago
 * are never spent together in one burst.
 */
export async function consumeReleasedSends(db: Knex, keys: MessageKey[], graceSeconds: number): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await run<{ id: string; fresh: boolean }>(
    db,
    sql`DELETE FROM throttled_sends WHERE ${byAccountKeysSql("", keys, "message_id")} AND released_at IS NOT NULL
        RETURNING message_id AS id, send_at > now() - make_interval(secs => ${graceSeconds}) AS fresh`,
  );
  return new Set(rows.filter((r) => r.fresh).map((r) => r.id));
}

/** Takes messages out of the queue, waiting or paid (sent directly, cancelled, held by quiet hours instead). */
export async function deleteThrottledSends(db: Knex, keys: MessageKey[]): Promise<number> {
  if (keys.length === 0) return 0;
  const { rowCount } = await run(db, sql`DELETE FROM throttled_sends WHERE ${byAccountKeysSql("", keys, "message_id")}`);
  return rowCount;
}

/** Takes a cancelled campaign's messages out of the queue. */
export async function deleteThrottledSendsOfCampaign(tx: Knex, accountId: string, campaignId: string): Promise<number> {
  const { rowCount } = await run(
    tx,
    sql`DELETE FROM throttled_sends t USING messages m
         WHERE m.account_id = ${accountId} AND m.campaign_id = ${campaignId} AND m.status = 'cancelled'
           AND t.account_id = m.account_id AND t.message_id = m.id`,
  );
  return rowCount;
}

/** Takes a batch's cancelled messages out of the throughput queue (after their jobs: the pacer's lock order). */
export async function deleteThrottledSendsOfBatch(tx: Knex, accountId: string, batchId: string): Promise<number> {
  const { rowCount } = await run(
    tx,
    sql`DELETE FROM throttled_sends t USING messages m
         WHERE m.account_id = ${accountId} AND m.batch_id = ${batchId} AND m.status = 'cancelled'
           AND t.account_id = m.account_id AND t.message_id = m.id`,
  );
  return rowCount;
}

/** What waits ahead of a message in each queue a cap keeps (domain/throughput.ts, QueueScope), and whether it is queued. */
export interface WaitingAhead extends Record<QueueScope, boolean> {
  /** It is in the queue itself (its job looked again before its turn, or at the head of the queue). */
  queued: boolean;
}

/**
 * SQL: the CTE `waiting_accounts(account_id)`, the accounts with messages waiting, by a loose walk of
 * throttled_sends_account_order_idx (one probe per account, however long their queues). Needs WITH RECURSIVE.
 */
const WAITING_ACCOUNTS_CTE = sql`waiting_accounts AS (
  (SELECT account_id FROM throttled_sends WHERE released_at IS NULL ORDER BY account_id LIMIT 1)
  UNION ALL
  SELECT (SELECT t.account_id FROM throttled_sends t WHERE t.released_at IS NULL AND t.account_id > a.account_id
           ORDER BY t.account_id LIMIT 1)
    FROM waiting_accounts a WHERE a.account_id IS NOT NULL
)`;

/**
 * SQL: the first waiting message of account `account` (an SQL expression) that is not one of the uuid[] parameter
 * and whose validity has not ended: an ordered walk of throttled_sends_account_order_idx, the only index in
 * release order, so the planner cannot walk another one filtering by account through a big account's backlog.
 */
const headOf = (account: string, not: string[]) => sql`
  SELECT t.account_id, t.priority, t.scheduled_at, t.message_id FROM throttled_sends t
   WHERE t.account_id = ${sql.raw(account)} AND t.released_at IS NULL AND t.message_id <> ALL(${not}::uuid[])
     AND (t.valid_until IS NULL OR t.valid_until > now())
   ORDER BY t.priority, t.scheduled_at, t.message_id LIMIT 1`;

/**
 * For each of these (scheduled messages about to be sent), whether the queue holds a message ahead of it
 * that is not one of them, in each queue of `scopes`: the account's (one of its own account ahead of it), and
 * the link's (one of its own account ahead of it, or any message of another account (the link's queue is shared between accounts by the pacer, by weight,
 * not by priority, so a message of one account never takes a free slot ahead of another's waiting ones); and
 * whether it is in the queue itself. Each account's head is read once (one probe).
 */
export async function findWaitingAhead(db: Knex, keys: MessageKey[], scopes: ReadonlySet<QueueScope>): Promise<Map<string, WaitingAhead>> {
  if (keys.length === 0) return new Map();
  const link = scopes.has("link");
  const messageIds = keys.map((k) => k.id);
  const linkHead = link
    ? sql`, ${WAITING_ACCOUNTS_CTE}, link_accounts AS MATERIALIZED (
         SELECT h.account_id FROM waiting_accounts a CROSS JOIN LATERAL (${headOf("a.account_id", messageIds)}) h
          WHERE a.account_id IS NOT NULL)`
    : sql``;
  const linkAhead = link
    ? sql`(EXISTS (SELECT 1 FROM link_accounts l WHERE l.account_id <> w.account_id)
           OR coalesce((h.priority, h.scheduled_at, h.message_id) < (w.priority, w.scheduled_at, w.id), false))`
    : sql`false`;
  const { rows } = await run<{ id: string } & WaitingAhead>(
    db,
    sql`WITH RECURSIVE w AS (
          SELECT m.id, m.account_id, ${jobPrioritySql(sql`m.priority`)} AS priority, m.scheduled_at FROM messages m
           WHERE ${byAccountKeysSql("m", keys)}
        ), account_heads AS (
          SELECT h.* FROM (SELECT DISTINCT account_id FROM w) a CROSS JOIN LATERAL (${headOf("a.account_id", messageIds)}) h
        ), queued AS (
          SELECT message_id FROM throttled_sends WHERE ${byAccountKeysSql("", keys, "message_id")}
        )${linkHead}
        SELECT w.id,
               coalesce((h.priority, h.scheduled_at, h.message_id) < (w.priority, w.scheduled_at, w.id), false) AS account,
               ${linkAhead} AS link,
               EXISTS (SELECT 1 FROM queued q WHERE q.message_id = w.id) AS queued
          FROM w LEFT JOIN account_heads h ON h.account_id = w.account_id`,
  );
  return new Map(rows.map(({ id, ...a }) => [id, a]));
}

/** Whether anything at all is in the queue (the pacer's idle check: one probe). */
export async function anyThrottledSends(db: Knex): Promise<boolean> {
  const { rows } = await run<{ any: boolean }>(db, sql`SELECT EXISTS (SELECT 1 FROM throttled_sends) AS any`);
  return rows[0]!.any;
}

/** An account with messages waiting: its cap and its weight (its share of the link's cap against others). */
export interface WaitingAccount {
  accountId: string;
  maxSegmentsPerSecond: number | null;
  weight: number;
}

/**
 * The accounts with messages waiting, each with its cap: the lower of its own setting and the operator's
 * ceiling (null: neither, it waits for the link's, or for nothing any more), and its weight. One probe of the
 * release-order index per account.
 */
export async function listWaitingAccounts(db: Knex): Promise<WaitingAccount[]> {
  const { rows } = await run<WaitingAccount>(
    db,
    sql`WITH RECURSIVE ${WAITING_ACCOUNTS_CTE}
        SELECT a.account_id AS "accountId", least(s.max_segments_per_second, o.max_segments_per_second) AS "maxSegmentsPerSecond",
               coalesce(o.weight, 1) AS weight
          FROM waiting_accounts a LEFT JOIN account_settings s ON s.account_id = a.account_id
          LEFT JOIN accounts o ON o.id = a.account_id
         WHERE a.account_id IS NOT NULL`,
  );
  return rows;
}

export interface ReleaseCandidate {
  messageId: string;
  accountId: string;
  segments: number;
  /** Seconds since the epoch. */
  validUntil: number | null;
  /** The message's send job, and its state; null when the message or job is gone. */
  jobId: string | null;
  jobState: string | null;
  /** The message's status; null when it is gone. */
  status: string | null;
  /** Seconds since it joined the queue. */
  waitedSeconds: number;
}

/**
 * The next waiting messages, in release order: the first `limit` of each account listed, each an ordered walk of
 * the per-account release-order index, with the message's status and its job's state (each an index probe).
 */
export async function listReleaseCandidates(tx: Knex, accounts: { accountId: string; limit: number }[]): Promise<ReleaseCandidate[]> {
  if (accounts.length === 0) return [];
  // LATERAL … LIMIT keeps each lookup a probe of its primary key, whatever the planner guesses of the walks.
  // Each account's queue in its own order (priority, scheduledAt, id); the pacer interleaves the accounts.
  const { rows } = await run<ReleaseCandidate>(
    tx,
    sql`SELECT c.message_id AS "messageId", c.account_id AS "accountId", c.segments,
            EXTRACT(EPOCH FROM c.valid_until)::float8 AS "validUntil",
            EXTRACT(EPOCH FROM clock_timestamp() - c.held_at)::float8 AS "waitedSeconds",
            x.status, x.job_id AS "jobId", x.state AS "jobState"
       FROM unnest(${accounts.map((a) => a.accountId)}::uuid[], ${accounts.map((a) => a.limit)}::int[]) AS a(account_id, n)
      CROSS JOIN LATERAL (
        SELECT * FROM throttled_sends t WHERE t.account_id = a.account_id AND t.released_at IS NULL
         ORDER BY t.priority, t.scheduled_at, t.message_id LIMIT a.n) c
       LEFT JOIN LATERAL (
        SELECT m.status, m.job_id, j.state FROM messages m LEFT JOIN jobs j ON j.id = m.job_id WHERE m.id = c.message_id LIMIT 1) x ON true
      ORDER BY c.account_id, c.priority, c.scheduled_at, c.message_id`,
  );
  return rows;
}

/** Marks messages paid, each with the slot its tokens were taken for (seconds since the epoch). */
export async function markThrottledSendsReleased(tx: Knex, releases: { messageId: string; sendAt: number }[]): Promise<void> {
  if (releases.length === 0) return;
  await run(
    tx,
    sql`UPDATE throttled_sends t SET released_at = now(), send_at = to_timestamp(r.send_at)
          FROM unnest(${releases.map((r) => r.messageId)}::uuid[], ${releases.map((r) => r.sendAt)}::float8[]) AS r(message_id, send_at)
         WHERE t.message_id = r.message_id`,
  );
}

/**
 * The queue's upkeep, for rows that would otherwise linger: a message whose validity has ended (its job fails it
 * then) leaves the queue; a row paid more than `paidForSeconds` ago and never sent is deleted when its message is
 * no longer scheduled (sent by the fast path after its account's cap was removed, say), and otherwise put back
 * to waiting (its job was not woken: it will be released again). Returns the rows changed.
 */
export async function sweepThrottledSends(db: Knex, paidForSeconds: number): Promise<number> {
  const { rows } = await run<{ n: string }>(
    db,
    sql`WITH expired AS (
       DELETE FROM throttled_sends WHERE valid_until <= now() RETURNING 1
     ), old AS (
       SELECT t.message_id, EXISTS (SELECT 1 FROM messages m WHERE m.id = t.message_id AND m.status = 'scheduled') AS scheduled
         FROM throttled_sends t
        WHERE t.released_at < now() - make_interval(secs => ${paidForSeconds}) AND (t.valid_until IS NULL OR t.valid_until > now())
     ), gone AS (
       DELETE FROM throttled_sends t USING old WHERE t.message_id = old.message_id AND NOT old.scheduled RETURNING 1
     ), unpaid AS (
       UPDATE throttled_sends t SET released_at = NULL, send_at = NULL FROM old WHERE t.message_id = old.message_id AND old.scheduled
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM expired) + (SELECT count(*) FROM gone) + (SELECT count(*) FROM unpaid) AS n`,
  );
  return Number(rows[0]!.n);
}

export interface ThroughputBacklog {
  priority: Priority;
  /** Messages waiting for throughput (not paid yet). */
  waiting: number;
  /** How long the oldest of them has waited past its scheduledAt, in seconds (0 when none). */
  oldestSeconds: number;
}

/**
 * The waiting messages per priority, every priority listed (for /metrics): a scan of the queue at scrape time
 * (milliseconds for 100,000 waiting). A message whose validity ended a moment ago counts until the pacer's next
 * sweep (within a second).
 */
export async function readThroughputBacklog(db: Knex, timeoutMs: number): Promise<ThroughputBacklog[]> {
  const { rows } = await sql`SELECT priority, count(*)::int AS waiting, EXTRACT(EPOCH FROM now() - min(scheduled_at))::float8 AS oldest
                               FROM throttled_sends WHERE released_at IS NULL GROUP BY priority`
    .forBuilder(db)
    .timeout(timeoutMs);
  const found = new Map((rows as { priority: number; waiting: number; oldest: number }[]).map((r) => [r.priority, r]));
  return PRIORITIES.map((priority, i) => ({
    priority,
    waiting: found.get(i)?.waiting ?? 0,
    oldestSeconds: Math.max(0, found.get(i)?.oldest ?? 0),
  }));
}
