// The balances and the ledger (migration 049): account_balances holds each account's balance, the sum of its
// ledger_entries, and every statement that moves one writes the other in the same statement. The refund of a
// message is the trigger's (migration 049), in the transaction of its status change.
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "../db/newestFirstPage.js";
import { run, sql } from "../db/sql.js";
import { prepared, runPrepared } from "../db/prepared.js";
import { scheduleMessageBindings, scheduleMessageSql, type NewMessage, type ScheduleValues } from "../db/messages/index.js";

export interface LedgerEntryRow {
  id: string;
  createdAt: Date;
  amount: number;
  reason: "message_charge" | "message_refund" | "credit" | "campaign_reservation" | "campaign_release";
  messageId: string | null;
  batchId: string | null;
  campaignId: string | null;
  note: string | null;
  balanceAfter: number;
}

/** One message's charge. */
export interface Charge {
  messageId: string;
  amount: number;
  batchId?: string | null;
  campaignId?: string | null;
}

/** Makes the account's balance row (at 0) if it has none: before anything charges it. */
export async function ensureBalance(db: Knex, accountId: string): Promise<void> {
  await run(db, sql`INSERT INTO account_balances (account_id) VALUES (${accountId}) ON CONFLICT DO NOTHING`);
}

/** The account's balance, its row locked until the transaction ends (0 and nothing locked when it has none). */
export async function lockBalance(db: Knex, accountId: string): Promise<number> {
  const { rows } = await run<{ balance: number }>(db, sql`SELECT balance FROM account_balances WHERE account_id = ${accountId} FOR UPDATE`);
  return rows[0]?.balance ?? 0;
}

export async function readBalance(db: Knex, accountId: string): Promise<number> {
  const { rows } = await run<{ balance: number }>(db, sql`SELECT balance FROM account_balances WHERE account_id = ${accountId}`);
  return rows[0]?.balance ?? 0;
}

/**
 * Debits the charges and writes their entries, in one statement; the balance may not end below `floor`
 * (null: no floor). Undefined when it would (nothing written), else the balance after them. The row update
 * waits for a concurrent one and checks the floor against its result (READ COMMITTED re-reads the row), so
 * concurrent charges never pass the floor together.
 */
export async function chargeMessages(db: Knex, accountId: string, charges: Charge[], floor: number | null): Promise<number | undefined> {
  if (charges.length === 0) return readBalance(db, accountId);
  const { rows } = await run<{ balance: number | null }>(
    db,
    sql`WITH item AS (
          SELECT * FROM unnest(${charges.map((c) => c.messageId)}::uuid[], ${charges.map((c) => c.amount)}::bigint[],
                               ${charges.map((c) => c.batchId ?? null)}::uuid[], ${charges.map((c) => c.campaignId ?? null)}::uuid[])
                   WITH ORDINALITY AS i(message_id, amount, batch_id, campaign_id, n)
        ), total AS (
          SELECT sum(amount)::bigint AS total FROM item
        ), balance AS (
          UPDATE account_balances b SET balance = b.balance - t.total FROM total t
           WHERE b.account_id = ${accountId} AND (${floor}::bigint IS NULL OR b.balance - t.total >= ${floor}::bigint)
          RETURNING b.balance, t.total
        ), entries AS (
          INSERT INTO ledger_entries (account_id, amount, reason, message_id, batch_id, campaign_id, balance_after)
          SELECT ${accountId}, -i.amount, 'message_charge', i.message_id, i.batch_id, i.campaign_id,
                 b.balance + b.total - sum(i.amount) OVER (ORDER BY i.n)
            FROM item i, balance b
        )
        SELECT (SELECT balance FROM balance) AS balance`,
  );
  return rows[0]?.balance ?? undefined;
}

/** Credits the account (its balance row made if needed); the entry written. */
export async function creditAccount(db: Knex, accountId: string, amount: number, note: string): Promise<LedgerEntryRow> {
  const { rows } = await run<LedgerEntryRow>(
    db,
    sql`WITH balance AS (
          INSERT INTO account_balances AS b (account_id, balance) VALUES (${accountId}, ${amount}::bigint)
          ON CONFLICT (account_id) DO UPDATE SET balance = b.balance + excluded.balance
          RETURNING b.balance
        )
        INSERT INTO ledger_entries (account_id, amount, reason, note, balance_after)
        SELECT ${accountId}, ${amount}::bigint, 'credit', ${note}, balance FROM balance
        RETURNING ${ENTRY_COLUMNS}`,
  );
  return rows[0]!;
}

const ENTRY_COLUMNS = sql`id, created_at AS "createdAt", amount, reason, message_id AS "messageId", batch_id AS "batchId",
  campaign_id AS "campaignId", note, balance_after AS "balanceAfter"`;

/** A page of the account's ledger, newest first. */
export async function ledgerPage(
  db: Knex,
  accountId: string,
  opts: { after?: CursorKey; limit: number },
): Promise<(LedgerEntryRow & CursorKey)[]> {
  const query = db("ledger_entries")
    .where({ account_id: accountId })
    .select([ENTRY_COLUMNS.forBuilder(db), cursorAtColumn(db, "created_at")]);
  return newestFirstPage(query, opts.after, opts.limit);
}

/**
 * Debits a campaign's reservation (its audience's cost) and writes its entry; the balance may not end below
 * `floor`. False when it would (nothing written).
 */
export async function reserveForCampaign(
  db: Knex,
  accountId: string,
  campaignId: string,
  amount: number,
  floor: number | null,
): Promise<boolean> {
  const { rows } = await run<{ balance: number | null }>(
    db,
    sql`WITH balance AS (
          UPDATE account_balances SET balance = balance - ${amount}::bigint
           WHERE account_id = ${accountId} AND (${floor}::bigint IS NULL OR balance - ${amount}::bigint >= ${floor}::bigint)
          RETURNING balance
        ), reservation AS (
          INSERT INTO campaign_reservations (account_id, campaign_id, remaining)
          SELECT ${accountId}, ${campaignId}, ${amount}::bigint FROM balance
        ), entry AS (
          INSERT INTO ledger_entries (account_id, amount, reason, campaign_id, balance_after)
          SELECT ${accountId}, -${amount}::bigint, 'campaign_reservation', ${campaignId}, balance FROM balance
        )
        SELECT (SELECT balance FROM balance) AS balance`,
  );
  return rows[0]?.balance !== null && rows[0]?.balance !== undefined;
}

/**
 * Charges a campaign's messages, each its own price, and releases as much of the campaign's reservation
 * (at most what is left of it): one statement, its release entry before the charges.
 */
export async function chargeFromReservation(db: Knex, accountId: string, campaignId: string, charges: Charge[]): Promise<void> {
  if (charges.length === 0) return;
  await run(
    db,
    sql`WITH item AS (
          SELECT * FROM unnest(${charges.map((c) => c.messageId)}::uuid[], ${charges.map((c) => c.amount)}::bigint[])
                   WITH ORDINALITY AS i(message_id, amount, n)
        ), total AS (
          SELECT sum(amount)::bigint AS total FROM item
        ), released AS (
          SELECT least(coalesce((SELECT remaining FROM campaign_reservations WHERE account_id = ${accountId} AND campaign_id = ${campaignId}), 0), t.total) AS released
            FROM total t
        ), reservation AS (
          UPDATE campaign_reservations r SET remaining = r.remaining - x.released FROM released x
           WHERE r.account_id = ${accountId} AND r.campaign_id = ${campaignId}
        ), balance AS (
          UPDATE account_balances b SET balance = b.balance - t.total + x.released FROM total t, released x
           WHERE b.account_id = ${accountId}
          RETURNING b.balance, t.total, x.released
        ), release AS (
          INSERT INTO ledger_entries (account_id, amount, reason, campaign_id, balance_after)
          SELECT ${accountId}, released, 'campaign_release', ${campaignId}, balance + total FROM balance WHERE released > 0
        )
        INSERT INTO ledger_entries (account_id, amount, reason, message_id, campaign_id, balance_after)
        SELECT ${accountId}, -i.amount, 'message_charge', i.message_id, ${campaignId}, b.balance + b.total - sum(i.amount) OVER (ORDER BY i.n)
          FROM item i, balance b`,
  );
}

/** Releases what is left of a campaign's reservation (its fan-out ended, or it was cancelled). */
export async function releaseReservation(db: Knex, accountId: string, campaignId: string): Promise<void> {
  await run(
    db,
    sql`WITH reservation AS (
          DELETE FROM campaign_reservations WHERE account_id = ${accountId} AND campaign_id = ${campaignId} RETURNING remaining
        ), balance AS (
          UPDATE account_balances b SET balance = b.balance + r.remaining FROM reservation r
           WHERE b.account_id = ${accountId} AND r.remaining > 0
          RETURNING b.balance, r.remaining
        )
        INSERT INTO ledger_entries (account_id, amount, reason, campaign_id, balance_after)
        SELECT ${accountId}, remaining, 'campaign_release', ${campaignId}, balance FROM balance`,
  );
}

/**
 * Compares the balance with the threshold and records whether it is below; the balance when it has just gone
 * below (the moment account.balance_low is sent), else undefined. A null threshold is never crossed.
 */
export async function noteLowBalance(db: Knex, accountId: string, threshold: number | null): Promise<number | undefined> {
  const { rows } = await run<{ low: boolean; balance: number }>(
    db,
    sql`UPDATE account_balances SET low = coalesce(balance < ${threshold}::bigint, false)
         WHERE account_id = ${accountId} AND low IS DISTINCT FROM coalesce(balance < ${threshold}::bigint, false)
        RETURNING low, balance`,
  );
  return rows[0]?.low ? rows[0].balance : undefined;
}

/** What charging a message as it is stored needs besides the message: its price list's version, the floor. */
export interface ChargeOnStore {
  /** The price list the message's price came from, and the `updatedAt` of the copy it was read from. */
  priceList: string;
  priceVersion: Date;
  /** -creditLimit for a prepaid account; null: no floor. */
  floor: number | null;
}

type ChargedValues = ScheduleValues & { priceList: string; priceVersion: Date; floor: number | null };

/**
 * POST /messages for a priced message in ONE statement (db/messages/insertScheduled.ts, with a gate): the price
 * list still the version it was priced by, the balance debited within the floor, the ledger entry, then the
 * message and its job, all or nothing. No BEGIN/COMMIT and no separate version read: four round trips fewer
 * than storing and charging in a transaction, and the balance row is locked only for this statement's end and
 * its commit (bench/NOTES.md, "Pricing on and off").
 */
const SCHEDULE_CHARGED = prepared("schedule_charged_message", (v: ChargedValues) =>
  scheduleMessageSql(v, {
    ctes: sql`priced AS (
          SELECT FROM allowed WHERE EXISTS (SELECT FROM price_lists WHERE name = ${v.priceList}::text
                                            AND date_trunc('milliseconds', updated_at) = ${v.priceVersion}::timestamptz)
        ), balance AS (
          UPDATE account_balances b SET balance = b.balance - ${v.priceAmount}::bigint
           WHERE b.account_id = ${v.accountId}::uuid AND EXISTS (SELECT FROM priced)
             AND (${v.floor}::bigint IS NULL OR b.balance - ${v.priceAmount}::bigint >= ${v.floor}::bigint)
          RETURNING b.balance
        ), entry AS (
          INSERT INTO ledger_entries (account_id, amount, reason, message_id, balance_after)
          SELECT ${v.accountId}::uuid, -${v.priceAmount}::bigint, 'message_charge', ${v.id}::uuid, balance FROM balance
        )`,
    passes: "balance",
    results: sql`, EXISTS (SELECT FROM allowed) AND NOT EXISTS (SELECT FROM priced) AS stale,
                 NOT EXISTS (SELECT FROM balance) AS unpaid,
                 EXISTS (SELECT FROM account_balances WHERE account_id = ${v.accountId}::uuid) AS "hasBalance"`,
  }),
);

export type ChargedStoreOutcome = "stored" | "sender_not_held" | "opted_out" | "stale_price" | "no_balance" | "insufficient_funds";

/** Stores `m` (priced) and charges its price in one statement; what happened. */
export async function storeChargedMessage(db: Knex, accountId: string, m: NewMessage, charge: ChargeOnStore): Promise<ChargedStoreOutcome> {
  const [row] = await runPrepared<
    { senderNotHeld: boolean; optedOut: boolean; stale: boolean; unpaid: boolean; hasBalance: boolean },
    ChargedValues
  >(db, SCHEDULE_CHARGED, { ...scheduleMessageBindings(accountId, m), ...charge });
  if (row!.senderNotHeld) return "sender_not_held";
  if (row!.optedOut) return "opted_out";
  if (row!.stale) return "stale_price";
  if (row!.unpaid) return row!.hasBalance ? "insufficient_funds" : "no_balance";
  return "stored";
}
