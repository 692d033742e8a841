// Delivery receipts waiting for SMPP client applications (the table smpp_client_receipts, migration 046: who
// writes, moves and reaps its rows is told there).
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export interface ClientReceipt {
  id: string;
  accountId: string;
  messageId: string;
  status: "delivered" | "undelivered" | "failed";
  errorCode: string | null;
  /** The message's facts a receipt tells. */
  recipient: string;
  sender: string;
  body: string;
  submittedAt: Date;
  smppReceipt: "uuid" | "hex" | "decimal";
  smppId: string | null;
}

/**
 * Leases up to `limit` waiting receipts of these accounts (none leased, or a lease run out) to `serverId` for
 * `leaseMs`, oldest first; rows of other processes' live leases are skipped, not waited for.
 */
export async function leaseClientReceipts(
  db: Knex,
  serverId: string,
  accountIds: string[],
  limit: number,
  leaseMs: number,
): Promise<ClientReceipt[]> {
  if (accountIds.length === 0 || limit <= 0) return [];
  const { rows } = await run<ClientReceipt>(
    db,
    sql`WITH leased AS (
          UPDATE smpp_client_receipts r SET leased_by = ${serverId}, lease_until = now() + make_interval(secs => ${leaseMs / 1000}::float8)
           WHERE r.id IN (SELECT id FROM smpp_client_receipts
                           WHERE account_id = ANY(${accountIds}::uuid[]) AND (lease_until IS NULL OR lease_until < now())
                           ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING r.id, r.account_id, r.message_id, r.status, r.error_code
        )
        SELECT l.id, l.account_id AS "accountId", l.message_id AS "messageId", l.status, l.error_code AS "errorCode",
               m.recipient, m.sender, m.body, m.created_at AS "submittedAt", m.smpp_receipt AS "smppReceipt",
               m.smpp_id::text AS "smppId"
          FROM leased l JOIN messages m ON m.account_id = l.account_id AND m.id = l.message_id
         ORDER BY l.id`,
  );
  return rows;
}

/** Deletes receipts their client acknowledged. */
export async function deleteClientReceipts(db: Knex, receipts: { id: string; accountId: string }[]): Promise<void> {
  if (receipts.length === 0) return;
  await run(
    db,
    sql`DELETE FROM smpp_client_receipts r USING unnest(${receipts.map((r) => r.id)}::uuid[], ${receipts.map((r) => r.accountId)}::uuid[]) AS d(id, account_id)
         WHERE r.account_id = d.account_id AND r.id = d.id`,
  );
}

/** Deletes receipts kept longer than `holdHours` (their client never bound a receiver in time); returns how many. */
export async function deleteExpiredClientReceipts(db: Knex, holdHours: number): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH gone AS (DELETE FROM smpp_client_receipts WHERE created_at < now() - make_interval(hours => ${holdHours}::int) RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
  );
  return rows[0]!.n;
}
