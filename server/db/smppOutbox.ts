// What waits for SMPP client applications (the table smpp_outbox, migration 046: who writes, moves and reaps its
// rows is told there): delivery receipts and inbound messages, each to go out as a deliver_sm.
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export interface OutboxEntry {
  id: string;
  accountId: string;
  messageId: string;
  kind: "receipt" | "inbound";
  /** The message's status when the entry was written (a receipt's final status). */
  status: string;
  errorCode: string | null;
  /** The message's facts a deliver_sm tells. */
  recipient: string;
  sender: string;
  body: string;
  createdAt: Date;
  smppReceipt: "uuid" | "hex" | "decimal" | null;
  smppId: string | null;
  /** The id a receipt of a message never stored tells (its parts' answer); null otherwise. */
  receiptId: string | null;
}

/**
 * Leases up to `limit` waiting entries of these accounts (none leased, or a lease run out) to `serverId` for
 * `leaseMs`, oldest first; rows of other processes' live leases are skipped, not waited for.
 */
export async function leaseOutbox(
  db: Knex,
  serverId: string,
  accountIds: string[],
  limit: number,
  leaseMs: number,
): Promise<OutboxEntry[]> {
  if (accountIds.length === 0 || limit <= 0) return [];
  const { rows } = await run<OutboxEntry>(
    db,
    sql`WITH leased AS (
          UPDATE smpp_outbox o SET leased_by = ${serverId}, lease_until = now() + make_interval(secs => ${leaseMs / 1000}::float8)
           WHERE o.id IN (SELECT id FROM smpp_outbox
                           WHERE account_id = ANY(${accountIds}::uuid[]) AND (lease_until IS NULL OR lease_until < now())
                           ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING o.id, o.account_id, o.message_id, o.kind, o.status, o.error_code, o.receipt_id, o.sender, o.recipient, o.created_at
        )
        SELECT l.id, l.account_id AS "accountId", l.message_id AS "messageId", l.kind, l.status, l.error_code AS "errorCode",
               coalesce(l.recipient, m.recipient) AS recipient, coalesce(l.sender, m.sender) AS sender, coalesce(m.body, '') AS body,
               coalesce(m.created_at, l.created_at) AS "createdAt", m.smpp_receipt AS "smppReceipt",
               m.smpp_id::text AS "smppId", l.receipt_id AS "receiptId"
          FROM leased l LEFT JOIN messages m ON m.account_id = l.account_id AND m.id = l.message_id
         WHERE m.id IS NOT NULL OR l.receipt_id IS NOT NULL
         ORDER BY l.id`,
  );
  return rows;
}

/** Deletes entries their client acknowledged. */
export async function deleteOutboxEntries(db: Knex, entries: { id: string; accountId: string }[]): Promise<void> {
  if (entries.length === 0) return;
  await run(
    db,
    sql`DELETE FROM smpp_outbox o USING unnest(${entries.map((r) => r.id)}::uuid[], ${entries.map((r) => r.accountId)}::uuid[]) AS d(id, account_id)
         WHERE o.account_id = d.account_id AND o.id = d.id`,
  );
}

/** Deletes entries kept longer than `holdHours` (no receiver bound in time); returns how many. */
export async function deleteExpiredOutboxEntries(db: Knex, holdHours: number): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH gone AS (DELETE FROM smpp_outbox WHERE created_at < now() - make_interval(hours => ${holdHours}::int) RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
  );
  return rows[0]!.n;
}

export interface SmppServerHealth {
  /** Binds open now (seen lately) per account. */
  binds: { accountId: string; binds: number }[];
  /** Entries waiting for a receiver, and the oldest one's age, per kind. */
  waiting: { kind: "receipt" | "inbound"; waiting: number; oldestSeconds: number }[];
}

/** For /metrics: the SMPP server's binds and what waits for its clients, across every process. */
export async function readSmppServerHealth(db: Knex, timeoutMs: number, staleSeconds: number): Promise<SmppServerHealth> {
  const [{ rows: binds }, { rows: waiting }] = await Promise.all([
    sql`SELECT account_id AS "accountId", count(*)::int AS binds FROM smpp_binds
         WHERE seen_at > now() - make_interval(secs => ${staleSeconds}::float8) GROUP BY account_id`
      .forBuilder(db)
      .timeout(timeoutMs),
    sql`SELECT kind, count(*)::int AS waiting, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS "oldestSeconds"
          FROM smpp_outbox GROUP BY kind`
      .forBuilder(db)
      .timeout(timeoutMs),
  ]);
  const found = new Map((waiting as { kind: "receipt" | "inbound"; waiting: number; oldestSeconds: number }[]).map((r) => [r.kind, r]));
  return {
    binds: binds as { accountId: string; binds: number }[],
    waiting: (["receipt", "inbound"] as const).map((kind) => ({
      kind,
      waiting: found.get(kind)?.waiting ?? 0,
      oldestSeconds: Math.max(0, found.get(kind)?.oldestSeconds ?? 0),
    })),
  };
}
