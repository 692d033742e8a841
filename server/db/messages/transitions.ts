// Every change of messages.status but the provider's (statusChange.ts), each a conditional UPDATE whose allowed
// `from` statuses come from the state machine (domain/messageStatus.ts, allowedFrom): cancel, the send claim,
// back to scheduled. A cancel and the claim are the same kind of statement on the same row, so exactly one of
// them wins. markOutcomesUnknown changes no status: it marks messages in `sending` whose outcome is unknown.
import type { Knex } from "knex";
import { allowedFrom, type StoredStatus } from "../../domain/messageStatus.js";
import { byAccountKeysSql, statusInSql } from "../byIdFilters.js";
import { cancelPendingJobsSql, moveJobsSql, notifyWorkers } from "../jobs/index.js";
import { COUNTED_COLUMNS, countStatusEventsSql } from "../messageCounts.js";
import { isOptedOutSql } from "../optOuts.js";
import { NEEDS_SENDING_POLICY_SQL } from "../sendingPolicy.js";
import { run, sql, type Sql } from "../sql.js";
import { ACCOUNT_SUSPENDED_SQL, CAMPAIGN_PAUSED_SQL, SENDER_HELD_SQL } from "../sendingGuards.js";
import { byKeys, returningSql, type MessageKey, type OwnedMessageRow, type SendAttemptRow } from "./rows.js";

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
  const { rows } = await run<{ jobId: string; cancelledAt: Date }>(
    tx,
    sql`WITH c AS (${cancelSql(sql`account_id = ${accountId} AND id = ${messageId}`)}), k AS (${countedSql()})
        SELECT job_id AS "jobId", cancelled_at AS "cancelledAt" FROM c`,
  );
  return rows[0];
}

/**
 * Cancels every message of the campaign still scheduled, with their jobs, in one
 * statement. Returns how many.
 */
export async function cancelCampaignMessages(tx: Knex.Transaction, accountId: string, campaignId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`WITH c AS (${cancelSql(sql`account_id = ${accountId} AND campaign_id = ${campaignId}`)}),
            
             k AS (${countedSql()}),
             j AS (${cancelPendingJobsSql(accountId, sql`SELECT job_id FROM c`)})
        SELECT count(*)::int AS n FROM c`,
  );
  return rows[0]!.n;
}

/**
 * Moves every message of the campaign still scheduled to `at` (its validity counted from it) with its waiting
 * send job, in one statement, and wakes the workers for it. Returns how many.
 */
export async function moveCampaignMessages(
  tx: Knex.Transaction,
  accountId: string,
  campaignId: string,
  at: Date,
  validUntil: Date | null,
): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`WITH m AS (UPDATE messages SET scheduled_at = ${at}, valid_until = ${validUntil}::timestamptz
                    WHERE account_id = ${accountId} AND campaign_id = ${campaignId} AND status = 'scheduled'
                    RETURNING job_id),
             j AS (${moveJobsSql(accountId, sql`SELECT job_id FROM m`, at)})
        SELECT count(*)::int AS n FROM m`,
  );
  await notifyWorkers(tx, at);
  return rows[0]!.n;
}

/**
 * Cancels every message of the batch still scheduled, with their jobs, in one
 * statement. Returns how many.
 */
export async function cancelBatchMessages(tx: Knex.Transaction, accountId: string, batchId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`WITH c AS (${cancelSql(sql`account_id = ${accountId} AND batch_id = ${batchId}`)}),
            
             k AS (${countedSql()}),
             j AS (${cancelPendingJobsSql(accountId, sql`SELECT job_id FROM c`)})
        SELECT count(*)::int AS n FROM c`,
  );
  return rows[0]!.n;
}

/** → cancelled for the messages `where` picks that may be cancelled; returns the columns the counts need. */
const cancelSql = (where: Sql) =>
  sql`UPDATE messages SET status = 'cancelled', cancelled_at = now(), deferred_until = NULL
       WHERE ${where} AND status = ANY(${allowedFrom("cancelled")}::text[])
      RETURNING account_id, id, job_id, cancelled_at, ${sql.raw(COUNTED_COLUMNS.join(", "))}`;

/** Counts the cancels of CTE `c` for reports, in the same statement (the history is the row's cancelled_at). */
const countedSql = () => countStatusEventsSql("c", "cancelled", "c.cancelled_at");

/** sending → scheduled, when the provider certainly did not take the messages (retried later): off the wire. */
export async function returnToScheduled(db: Knex, keys: MessageKey[], opts: { waitingFor?: "connector" } = {}): Promise<number> {
  return byKeys(db, keys)
    .where(statusInSql("messages", allowedFrom("scheduled")).forBuilder(db))
    .update({ status: "scheduled", submitted_at: null, submitted_via: null, waiting_for: opts.waitingFor ?? null });
}

/**
 * Where each message of a routed window goes: its connector (also of those its cap refused, whose turns a cap
 * change makes due: makeCappedSendsDue), and for those about to be written (`write`), committed just before
 * their PDUs are, that link's name and the on-the-wire mark (submitted_at; the claim of a routed window leaves
 * it null). Only while `workerId` still holds the message's job: a worker that lost its lease (another rescued
 * the job and may send the message itself) marks nothing. Returns the ids marked to be written: only those are.
 */
export async function assignConnectors(
  db: Knex,
  targets: (MessageKey & { connectorId: string; link: string; write: boolean })[],
  workerId: string,
): Promise<Set<string>> {
  if (targets.length === 0) return new Set();
  const { rows } = await run<{ id: string; write: boolean }>(
    db,
    sql`UPDATE messages m SET connector_id = t."connectorId",
                              submitted_via = CASE WHEN t.write THEN t.link ELSE m.submitted_via END,
                              submitted_at = CASE WHEN t.write THEN now() ELSE m.submitted_at END
          FROM jsonb_to_recordset(${JSON.stringify(targets)}::jsonb)
               AS t(id uuid, "accountId" uuid, "connectorId" uuid, link text, write boolean)
         WHERE m.account_id = t."accountId" AND m.id = t.id AND m.status = 'sending'
           AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = m.job_id AND j.locked_by = ${workerId})
        RETURNING m.id, t.write`,
  );
  return new Set(rows.filter((r) => r.write).map((r) => r.id));
}

/**
 * sending → scheduled for messages claimed but never marked on the wire (a routed window's worker died between
 * its claim and assignConnectors): certainly never written, so sent again. Returns the ids it applied to.
 */
export async function returnUnwrittenToScheduled(db: Knex, keys: MessageKey[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await byKeys(db, keys)
    .where({ status: "sending" })
    .whereNull("submitted_at")
    .update({ status: "scheduled", submitted_via: null })
    .returning("id");
  return rows.map((r: { id: string }) => r.id);
}

/** The connectors a message was tried on, for those tried on more than one (failover). */
export async function recordAttempts(db: Knex, tried: (MessageKey & { attempts: SendAttemptRow[] })[]): Promise<void> {
  if (tried.length === 0) return;
  await run(
    db,
    sql`UPDATE messages m SET attempts = t.attempts
          FROM jsonb_to_recordset(${JSON.stringify(tried)}::jsonb) AS t(id uuid, "accountId" uuid, attempts jsonb)
         WHERE m.account_id = t."accountId" AND m.id = t.id`,
  );
}

/**
 * sending → scheduled for an unknown outcome nothing resolved, taken as never received (SEND_OUTCOME_UNRESOLVED
 * =resend): off the wire, its unknown outcome cleared, and marked so that it is sent again for this reason once
 * only. Returns the ids it applied to (those still unresolved and never resent).
 */
export async function returnUnresolvedToScheduled(db: Knex, keys: MessageKey[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await byKeys(db, keys)
    .where(statusInSql("messages", allowedFrom("scheduled")).forBuilder(db))
    .whereNull("unknown_resent_at")
    .update({ status: "scheduled", submitted_at: null, submitted_via: null, outcome_unknown_at: null, unknown_resent_at: db.fn.now() })
    .returning("id");
  return rows.map((r: { id: string }) => r.id);
}

const ON_THE_WIRE: StoredStatus[] = ["sending"];

/**
 * Declares the outcome of messages left on the wire unknown (a dropped link, or found in `sending` after a
 * crash); the first declaration's time stays. They stay `sending` until a receipt resolves them or the
 * resolution time runs out. Returns each message's declaration time.
 */
export async function markOutcomesUnknown(db: Knex, keys: MessageKey[]): Promise<Map<string, Date>> {
  if (keys.length === 0) return new Map();
  const rows: { id: string; at: Date }[] = await byKeys(db, keys)
    .where(statusInSql("messages", ON_THE_WIRE).forBuilder(db))
    .update({ outcome_unknown_at: db.raw("coalesce(outcome_unknown_at, now())") })
    .returning(["id", "outcome_unknown_at as at"]);
  return new Map(rows.map((r) => [r.id, r.at]));
}

/**
 * scheduled → sending for one window of messages. With one connector for all (`target`), committed just before
 * their PDUs are written, the same statement sets the on-the-wire mark (submitted_at, and the link); a routed
 * window is marked per connector by assignConnectors just before its writes, so a claimed message without the
 * mark was certainly never written (returnUnwrittenToScheduled). `sending` with the mark means "maybe at the
 * provider". Cancel is the same kind of conditional UPDATE on the same row: exactly one of them wins, so a
 * cancelled message is never handed to the provider. A message past its validity is not claimed (it is failed
 * as validity_expired instead), checked on the database's clock in the same statement; nor is one whose
 * recipient is on the account's opt-out list (failed as recipient_opted_out by the caller), nor one whose E.164
 * sender its account no longer holds (failed as sender_not_allowed), nor one of a suspended account or a paused
 * campaign (it waits).
 * Returns the messages this call claimed.
 *
 * One statement with the ids as one array parameter: a window's send is a chain of round trips no other work
 * overlaps, so each one counts. The opt-out check here instead of a query of its own, and `= ANY` instead of
 * a knex whereIn of 100 placeholders, made the send path a fifth faster (bench/NOTES.md).
 */
export async function claimMessagesForSending(
  db: Knex,
  keys: MessageKey[],
  /** The connector they all go to, when one takes every message; null when each is routed after the claim. */
  target: { link: string; connectorId: string | null } | null,
  opts: { policyChecked?: boolean } = {},
): Promise<OwnedMessageRow[]> {
  if (keys.length === 0) return [];
  // Without `policyChecked` (the fast path) a message the sending policy applies to is left for the policy to
  // decide (services/sendingPolicy/), which claims it again with `policyChecked` once it may go. Sending ends
  // a hold by quiet hours: deferred_until is cleared.
  const { rows } = await run<OwnedMessageRow>(
    db,
    sql`UPDATE messages m SET status = 'sending', submitted_at = ${target ? sql`now()` : sql`NULL`}, submitted_via = ${target?.link ?? null},
                              connector_id = ${target?.connectorId ?? null}, waiting_for = NULL, deferred_until = NULL
         WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", allowedFrom("sending"))}
           AND (m.valid_until IS NULL OR m.valid_until > now())
           AND (m.bypasses_opt_out OR NOT ${isOptedOutSql("m.account_id", "m.recipient")})
           AND (${opts.policyChecked === true}::boolean OR NOT ${NEEDS_SENDING_POLICY_SQL})
           AND ${SENDER_HELD_SQL} AND NOT ${ACCOUNT_SUSPENDED_SQL} AND NOT ${CAMPAIGN_PAUSED_SQL}
        RETURNING ${sql.raw(returningSql)}`,
  );
  return rows;
}
