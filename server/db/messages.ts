import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import type { StoredStatus } from "../domain/messageStatus.js";
import type { Encoding } from "../domain/segments.js";
import { insertJobsSql, laneNowPayloadSql, notifyWhenSql, notifyWorkers, type ClaimedJob } from "./jobs/index.js";
import { NEEDS_SENDING_POLICY_SQL } from "./sendingPolicy.js";
import { isOptedOutSql } from "./optOuts.js";
import { jobPrioritySql, SCHEDULE_DEFAULTS, type Category, type Priority } from "../domain/sendingPolicy.js";
import { byAccountKeys, statusIn, type AccountKey } from "./byIdFilters.js";

export type { StoredStatus };

export interface MessageRow {
  id: string;
  direction: "outbound" | "inbound";
  /** null for an inbound message, and so is scheduledAt. */
  jobId: string | null;
  campaignId: string | null;
  to: string;
  from: string;
  body: string;
  status: StoredStatus;
  scheduledAt: Date | null;
  /** The end of its validity, or null: not handed to the provider by then, it is never sent. */
  validUntil: Date | null;
  /** While held by quiet hours: when the window ends in the recipient's zone; else null. */
  deferredUntil: Date | null;
  category: Category;
  priority: Priority;
  sentAt: Date | null;
  deliveredAt: Date | null;
  cancelledAt: Date | null;
  providerMessageId: string | null;
  segments: number;
  encoding: Encoding;
  errorCode: string | null;
  errorMessage: string | null;
  /** Inbound only. */
  receivedAt: Date | null;
  incomplete: boolean;
  createdAt: Date;
}

export interface StatusChangeRow {
  status: Exclude<StoredStatus, "sending">;
  at: Date;
}

export interface NewMessage {
  id: string;
  jobId: string;
  campaignId?: string | null;
  to: string;
  from: string;
  body: string;
  scheduledAt: Date;
  /** null: no validity limit. */
  validUntil?: Date | null;
  /** Defaults: transactional, normal. */
  category?: Category;
  priority?: Priority;
  segments: number;
  encoding: Encoding;
}

const columns = {
  id: "id",
  direction: "direction",
  jobId: "job_id",
  campaignId: "campaign_id",
  to: "recipient",
  from: "sender",
  body: "body",
  status: "status",
  scheduledAt: "scheduled_at",
  validUntil: "valid_until",
  deferredUntil: "deferred_until",
  category: "category",
  priority: "priority",
  sentAt: "sent_at",
  deliveredAt: "delivered_at",
  cancelledAt: "cancelled_at",
  providerMessageId: "provider_message_id",
  segments: "segments",
  encoding: "encoding",
  errorCode: "error_code",
  errorMessage: "error_message",
  receivedAt: "received_at",
  incomplete: "incomplete",
  createdAt: "created_at",
};

/**
 * Stores scheduled messages with their send jobs in ONE statement, the columns
 * passed as arrays (unnest): a few parameters however many rows, so neither side parses thousands of
 * placeholders. Campaign fan-out uses it: measured with bench:campaign (20,000 contacts), 1,000-row batches of
 * three knex multi-row INSERTs created all messages in 7.5 s, 5,000-row batches of this statement in 3.4 s.
 * Wakes the workers (at commit) when one of the messages is due within the notify horizon.
 */
export async function insertMessagesWithJobs(tx: Knex, accountId: string, messages: NewMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const col = <K extends keyof NewMessage>(k: K) => messages.map((m) => m[k]);
  await tx.raw(
    `WITH rows AS (
       SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::int[], ?::text[], ?::timestamptz[], ?::text[], ?::text[])
         AS r(id, job_id, campaign_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority)
     ), jobs AS (
       ${insertJobsSql("send_message", { id: "job_id", accountId: "?::uuid", payload: "jsonb_build_object('messageId', id)", runAt: "scheduled_at", priority: jobPrioritySql("priority"), from: "rows" })}
     )
     INSERT INTO messages (id, account_id, campaign_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority)
     SELECT id, ?, campaign_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority FROM rows`,
    [
      col("id"),
      col("jobId"),
      messages.map((m) => m.campaignId ?? null),
      col("to"),
      col("from"),
      col("body"),
      messages.map((m) => m.scheduledAt.toISOString()),
      col("segments"),
      col("encoding"),
      messages.map((m) => m.validUntil?.toISOString() ?? null),
      messages.map((m) => m.category ?? SCHEDULE_DEFAULTS.category),
      messages.map((m) => m.priority ?? SCHEDULE_DEFAULTS.priority),
      accountId,
      accountId,
    ],
  );
  await notifyWorkers(tx, new Date(Math.min(...messages.map((m) => m.scheduledAt.getTime()))));
}

export async function getMessage(db: Knex, accountId: string, messageId: string): Promise<MessageRow | undefined> {
  return db("messages").where({ account_id: accountId, id: messageId }).first(columns);
}

export async function listMessages(
  db: Knex,
  accountId: string,
  opts: {
    statuses?: StoredStatus[];
    campaignId?: string;
    direction?: MessageRow["direction"];
    /** The conversation with this number: outbound to it, inbound from it. */
    phone?: string;
    after?: CursorKey;
    limit: number;
  },
): Promise<(MessageRow & CursorKey)[]> {
  const query = db("messages").where({ account_id: accountId }).select(columns, cursorAtColumn(db, "created_at"));
  if (opts.statuses) query.whereIn("status", opts.statuses);
  if (opts.campaignId) query.where({ campaign_id: opts.campaignId });
  if (opts.direction) query.where({ direction: opts.direction });
  if (opts.phone) {
    // Each side matches one of the partial indexes of migration 010.
    query.whereRaw("((direction = 'outbound' AND recipient = ?) OR (direction = 'inbound' AND sender = ?))", [opts.phone, opts.phone]);
  }
  return newestFirstPage(query, opts.after, opts.limit);
}

/**
 * Status histories of the given messages, oldest entry first. The first entry, "scheduled", is not stored: it
 * is the message's creation (migration 006), taken from the rows the caller already holds.
 */
export async function getStatusHistories(
  db: Knex,
  accountId: string,
  messages: { id: string; createdAt: Date; direction?: MessageRow["direction"]; receivedAt?: Date | null }[],
): Promise<Map<string, StatusChangeRow[]>> {
  const rows = await db("message_status_history")
    .where({ account_id: accountId })
    .whereIn(
      "message_id",
      messages.map((m) => m.id),
    )
    .orderBy([{ column: "message_id" }, { column: "id" }])
    .select({ messageId: "message_id", status: "status", at: "at" });
  // An inbound message's one entry, "received", is its row's received_at, likewise not stored.
  const histories = new Map<string, StatusChangeRow[]>(
    messages.map((m) => [
      m.id,
      [m.direction === "inbound" ? { status: "received", at: m.receivedAt ?? m.createdAt } : { status: "scheduled", at: m.createdAt }],
    ]),
  );
  for (const row of rows) histories.get(row.messageId)?.push({ status: row.status, at: row.at });
  return histories;
}

/**
 * scheduled → cancelled as one conditional UPDATE: the send claim is the same kind of statement on the same
 * row, so exactly one of the two wins. Returns the cancelled row, or undefined when the message was not
 * in `scheduled`. A message held by quiet hours loses its deferred_until: it is no longer held.
 */
export async function cancelScheduledMessage(
  tx: Knex.Transaction,
  accountId: string,
  messageId: string,
): Promise<{ jobId: string; cancelledAt: Date } | undefined> {
  const [row] = await tx("messages")
    .where({ account_id: accountId, id: messageId, status: "scheduled" })
    .update({ status: "cancelled", cancelled_at: tx.fn.now(), deferred_until: null })
    .returning(["job_id as jobId", "cancelled_at as cancelledAt"]);
  if (!row) return undefined;
  await tx("message_status_history").insert({ account_id: accountId, message_id: messageId, status: "cancelled", at: row.cancelledAt });
  return row;
}

const returning = [
  ...Object.entries(columns).map(([alias, col]) => `${col} as ${alias}`),
  "account_id as accountId",
  "submitted_at as submittedAt",
  "outcome_unknown_at as outcomeUnknownAt",
];
const returningSql = returning
  .map((r) => {
    const [col, alias] = r.split(" as ");
    return `m.${col} AS "${alias}"`;
  })
  .join(", ");
export type OwnedMessageRow = MessageRow & { accountId: string; submittedAt: Date | null; outcomeUnknownAt: Date | null };

/** A message picked by key: its id and its account (server/db/byIdFilters.ts). */
export type MessageKey = AccountKey;

/** Messages picked by key (server/db/byIdFilters.ts). */
const byKeys = (db: Knex, keys: MessageKey[]) => {
  const k = byAccountKeys("", keys);
  return db("messages").whereRaw(k.sql, k.bindings);
};

/** sending → scheduled, when the provider certainly did not take the messages (retried later): off the wire. */
export async function returnToScheduled(db: Knex, keys: MessageKey[]): Promise<number> {
  return byKeys(db, keys)
    .whereRaw(statusIn(undefined, "'{sending}'::text[]"))
    .update({ status: "scheduled", submitted_at: null, submitted_via: null });
}

/**
 * sending → scheduled for an unknown outcome nothing resolved, taken as never received (SEND_OUTCOME_UNRESOLVED
 * =resend): off the wire, its unknown outcome cleared, and marked so that it is sent again for this reason once
 * only. Returns the ids it applied to (those still unresolved and never resent).
 */
export async function returnUnresolvedToScheduled(db: Knex, keys: MessageKey[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await byKeys(db, keys)
    .whereRaw(statusIn(undefined, "'{sending}'::text[]"))
    .whereNull("unknown_resent_at")
    .update({ status: "scheduled", submitted_at: null, submitted_via: null, outcome_unknown_at: null, unknown_resent_at: db.fn.now() })
    .returning("id");
  return rows.map((r: { id: string }) => r.id);
}

/**
 * Declares the outcome of messages left on the wire unknown (a dropped link, or found in `sending` after a
 * crash); the first declaration's time stays. They stay `sending` until a receipt resolves them or the
 * resolution time runs out. Returns each message's declaration time.
 */
export async function markOutcomesUnknown(db: Knex, keys: MessageKey[]): Promise<Map<string, Date>> {
  if (keys.length === 0) return new Map();
  const rows: { id: string; at: Date }[] = await byKeys(db, keys)
    .whereRaw(statusIn(undefined, "'{sending}'::text[]"))
    .update({ outcome_unknown_at: db.raw("coalesce(outcome_unknown_at, now())") })
    .returning(["id", "outcome_unknown_at as at"]);
  return new Map(rows.map((r) => [r.id, r.at]));
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
  return query.where({ provider_message_id: where.providerMessageId });
}

export interface StatusUpdate {
  messageId: string;
  accountId: string;
  at: Date;
  providerMessageId?: string;
  error?: { code: string; message: string } | null;
  /** The receipt's exact bytes. */
  body: string;
}

export interface ReceiptOutbox {
  event: string;
  seq: number;
}

/** Receipt jobs a status change inserts already claimed by `workerId` for `leaseMs`: at most `limit`. */
export interface ReceiptJobsClaim {
  workerId: string;
  leaseMs: number;
  limit: number;
}

/**
 * Moves many messages to one status as ONE statement: the conditional UPDATE (only rows in `from`), their
 * history entries, a receipt delivery for every webhook of each account with a delivery job each (the
 * transactional outbox), and one NOTIFY. A single statement is atomic, so a change never commits without its
 * receipts. Measured on bench:dispatch, round trips were the cost that mattered (each one a writev syscall
 * and a context switch on both sides): one statement per batch replaced a five-round-trip transaction per
 * message. Returns the rows that changed; a late or duplicate report changes nothing and is absent. With
 * `claimFor`, up to its limit of the receipt jobs are inserted already claimed and returned (`claimed`), and the
 * NOTIFY is sent only if some are left for any worker to claim.
 */
export async function updateStatusesWithReceipts(
  db: Knex,
  to: StoredStatus,
  from: StoredStatus[],
  updates: StatusUpdate[],
  receipt: ReceiptOutbox,
  claimFor?: ReceiptJobsClaim,
): Promise<{ changed: { id: string; campaignId: string | null }[]; claimed: ClaimedJob[] }> {
  if (updates.length === 0) return { changed: [], claimed: [] };
  const { rows } = await db.raw(
    `WITH i AS (
       SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::timestamptz[], ?::text[], ?::text[], ?::text[], ?::text[])
         AS i(id, account_id, at, provider_message_id, error_code, error_message, body)
     ), m AS (
       UPDATE messages SET
         status = ?,
         deferred_until = NULL, -- shown only while held by quiet hours: a failed message is not held
         sent_at = CASE WHEN ? = 'sent' THEN i.at ELSE messages.sent_at END,
         delivered_at = CASE WHEN ? = 'delivered' THEN i.at ELSE messages.delivered_at END,
         provider_message_id = coalesce(i.provider_message_id, messages.provider_message_id),
         error_code = coalesce(i.error_code, messages.error_code),
         error_message = coalesce(i.error_message, messages.error_message)
       FROM i WHERE messages.id = ANY(?::uuid[]) AND messages.account_id = i.account_id AND messages.id = i.id AND ${statusIn("messages", "?::text[]")}
       RETURNING messages.id, messages.account_id, messages.campaign_id, i.at, i.body
     ), h AS (
       INSERT INTO message_status_history (account_id, message_id, status, at) SELECT account_id, id, ?, at FROM m
     ), d AS (
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body)
       SELECT gen_uuid_v7(), w.id, w.account_id, m.id, ?, ?, m.body FROM m JOIN webhooks w ON w.account_id = m.account_id AND ? = ANY(w.events)
       RETURNING id, account_id
     ), j AS (
       ${insertJobsSql("deliver_receipt", {
         accountId: "d.account_id",
         payload: "jsonb_build_object('deliveryId', d.id)",
         // The first `limit` are handed to the worker that made them (claimFor), the rest are claimable.
         from: "(SELECT d.*, row_number() OVER () <= ?::int AS handed, ?::text AS worker, ?::double precision AS lease FROM d) d",
         claimed: { when: "d.handed", workerId: "d.worker", leaseSeconds: "d.lease" },
       })}
       RETURNING id, kind, payload, attempt, max_attempts, run_at, created_at, account_id, state
     ), n AS (
       SELECT ${notifyWhenSql("EXISTS (SELECT 1 FROM j WHERE state = 'available')", laneNowPayloadSql("receipts"))} AS notified
     )
     SELECT (SELECT coalesce(json_agg(json_build_object('id', m.id, 'campaignId', m.campaign_id)), '[]') FROM m) AS changed,
            (SELECT coalesce(json_agg(json_build_object('id', j.id, 'kind', j.kind, 'payload', j.payload, 'attempt', j.attempt,
                       'maxAttempts', j.max_attempts, 'runAt', j.run_at, 'createdAt', j.created_at, 'accountId', j.account_id)), '[]')
               FROM j WHERE j.state = 'running') AS claimed
       FROM n`,
    [
      updates.map((u) => u.messageId),
      updates.map((u) => u.accountId),
      updates.map((u) => u.at),
      updates.map((u) => u.providerMessageId ?? null),
      updates.map((u) => u.error?.code ?? null),
      updates.map((u) => u.error?.message ?? null),
      updates.map((u) => u.body),
      to,
      to,
      to,
      updates.map((u) => u.messageId), // again, as `id = ANY`: the key's index condition even on a young table
      from,
      to,
      receipt.event,
      receipt.seq,
      receipt.event,
      claimFor?.limit ?? 0,
      claimFor?.workerId ?? null,
      (claimFor?.leaseMs ?? 0) / 1000,
    ],
  );
  type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };
  return {
    changed: rows[0].changed,
    claimed: (rows[0].claimed as RawJob[]).map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
  };
}

/**
 * scheduled → sending for one window of messages, committed just before their PDUs are written: the same
 * statement sets the on-the-wire mark (submitted_at, and the link), so `sending` always means "maybe at the
 * provider". Cancel is the same kind of conditional UPDATE on the same row: exactly one of them wins, so a
 * cancelled message is never handed to the provider. A message past its validity is not claimed (it is failed
 * as validity_expired instead), checked on the database's clock in the same statement; nor is one whose
 * recipient is on the account's opt-out list (failed as recipient_opted_out by the caller). Returns the
 * messages this call claimed.
 *
 * One statement with the ids as one array parameter: a window's send is a chain of round trips no other work
 * overlaps, so each one counts. The opt-out check here instead of a query of its own, and `= ANY` instead of
 * a knex whereIn of 100 placeholders, took the send path alone (bench:dispatch with BENCH_NO_WEBHOOK) from
 * 1,601 to 1,972 messages/s with one worker (bench/NOTES.md, 2026-11-24).
 */
export async function claimMessagesForSending(
  db: Knex,
  keys: MessageKey[],
  link: string,
  opts: { policyChecked?: boolean } = {},
): Promise<OwnedMessageRow[]> {
  if (keys.length === 0) return [];
  // Without `policyChecked` (the fast path) a message the sending policy applies to is left for the policy to
  // decide (services/sendingPolicy/), which claims it again with `policyChecked` once it may go. Sending ends
  // a hold by quiet hours: deferred_until is cleared.
  const { rows } = await db.raw(
    `UPDATE messages m SET status = 'sending', submitted_at = now(), submitted_via = ?, deferred_until = NULL
      WHERE ${byAccountKeys("m", keys).sql} AND ${statusIn("m", "'{scheduled}'::text[]")} AND (m.valid_until IS NULL OR m.valid_until > now())
        AND (m.bypasses_opt_out OR NOT ${isOptedOutSql("m.account_id", "m.recipient")})
        AND (?::boolean OR NOT ${NEEDS_SENDING_POLICY_SQL})
      RETURNING ${returningSql}`,
    [link, ...byAccountKeys("m", keys).bindings, opts.policyChecked === true],
  );
  return rows as OwnedMessageRow[];
}

/**
 * Messages by key, or by the provider's ids, each of the account in the same place of `accountIds` when the
 * caller knows them (see findMessage).
 */
export async function findMessages(
  db: Knex,
  where: { keys: MessageKey[] } | { providerMessageIds: string[]; accountIds?: string[] },
): Promise<OwnedMessageRow[]> {
  if ("keys" in where) return byKeys(db, where.keys).select(returning);
  if (where.providerMessageIds.length === 0) return [];
  // One index probe per provider id: a LATERAL subquery the planner cannot flatten (OFFSET 0). Written as
  // `provider_message_id IN (…)`, a young table (no statistics: a fresh install's first burst, a benchmark) was
  // read whole for every batch of reports, 16.6 ms for 100 of 20,000 messages in bench:dispatch. The account is
  // tested as `(… = …) IS TRUE`, which no index can serve: written plainly, on that young table each probe also
  // read messages_account_page_idx (a bitmap AND through the account's whole history); as pairs, the planner
  // made the same join of it (test/engine/young-table-plans.test.ts).
  const { rows } = await db.raw(
    `SELECT ${returningSql}
       FROM unnest(?::text[], ?::uuid[]) AS p(provider_message_id, account_id)
       CROSS JOIN LATERAL (
         SELECT * FROM messages x
          WHERE x.provider_message_id = p.provider_message_id
            ${where.accountIds ? "AND (x.account_id = p.account_id) IS TRUE" : ""}
         OFFSET 0) m`,
    [where.providerMessageIds, where.accountIds ?? []],
  );
  return rows as OwnedMessageRow[];
}

export interface NewInboundMessage {
  id: string;
  from: string;
  to: string;
  body: string;
  segments: number;
  encoding: Encoding;
  receivedAt: Date;
  incomplete: boolean;
}

/** Stores an inbound message: recipient is the account's number, sender the person. */
export async function insertInboundMessage(db: Knex, accountId: string, m: NewInboundMessage): Promise<void> {
  await db("messages").insert({
    id: m.id,
    account_id: accountId,
    direction: "inbound",
    recipient: m.to,
    sender: m.from,
    body: m.body,
    status: "received",
    received_at: m.receivedAt,
    incomplete: m.incomplete,
    segments: m.segments,
    encoding: m.encoding,
  });
}

/**
 * An automatic reply (a keyword's confirmation or the help text): an ordinary outbound message due now, with its
 * send job, that the send-time opt-out check lets through.
 */
export async function insertAutoReply(tx: Knex.Transaction, accountId: string, m: NewMessage): Promise<void> {
  await tx.raw(
    `WITH job AS (
       ${insertJobsSql("send_message", { id: "?::uuid", accountId: "?::uuid", payload: "jsonb_build_object('messageId', ?::uuid)", runAt: "?::timestamptz" })}
     )
     INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, bypasses_opt_out)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, true)`,
    [m.jobId, accountId, m.id, m.scheduledAt, m.id, accountId, m.jobId, m.to, m.from, m.body, m.scheduledAt, m.segments, m.encoding],
  );
  await notifyWorkers(tx, m.scheduledAt);
}

/** Of the given messages, those still `scheduled` whose validity has ended (on the database's clock). */
export async function scheduledPastValidity(
  db: Knex,
  keys: MessageKey[],
): Promise<{ id: string; accountId: string; to: string; campaignId: string | null; providerMessageId: string | null }[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.raw(
    `SELECT id, account_id AS "accountId", recipient AS "to", campaign_id AS "campaignId", provider_message_id AS "providerMessageId"
       FROM messages WHERE ${byAccountKeys("", keys).sql} AND ${statusIn(undefined, "'{scheduled}'::text[]")} AND valid_until <= now()`,
    byAccountKeys("", keys).bindings,
  );
  return rows;
}
