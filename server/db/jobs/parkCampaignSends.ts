import type { Knex } from "knex";
import { run, sql, type Sql } from "../sql.js";

/** How far ahead a paused campaign's send jobs are parked when their messages have no validity to end. */
const PARKED_FOR = "1 year";

/**
 * Parks the waiting send jobs of a paused campaign's scheduled messages: each runs again when its message's
 * validity ends (the claim then fails it as validity_expired: validity still applies while paused), else a
 * year ahead; resume (makeCampaignSendsDue) makes them due. A running job is left alone: the send claim
 * refuses a paused campaign's message and its job snoozes (jobs/handlers/sendMessage.ts). Locked in id order,
 * as every statement that writes many jobs locks them (cancelPendingJobsSql says why). Returns how many.
 */
export async function parkCampaignSends(tx: Knex.Transaction, accountId: string, campaignId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`WITH parked AS (${moveCampaignSendsSql(accountId, campaignId, sql`COALESCE(m.valid_until, now() + ${PARKED_FOR}::interval)`)})
        SELECT count(*)::int AS n FROM parked`,
  );
  return rows[0]!.n;
}

/**
 * Moves the waiting send jobs of the campaign's scheduled messages to `runAt` (an expression on the message `m`),
 * locked in id order; returns their ids. A statement to embed in a caller's CTE.
 */
export const moveCampaignSendsSql = (accountId: string, campaignId: string, runAt: Sql): Sql =>
  sql`WITH waiting AS (
        SELECT j.id, ${runAt} AS run_at
          FROM messages m JOIN jobs j ON j.id = m.job_id
         WHERE m.account_id = ${accountId} AND m.campaign_id = ${campaignId} AND m.status = 'scheduled'
           AND j.account_id = ${accountId} AND j.state IN ('available', 'retryable')
         ORDER BY j.id FOR UPDATE OF j
      )
      UPDATE jobs j SET run_at = w.run_at FROM waiting w WHERE j.id = w.id AND j.account_id = ${accountId} RETURNING j.id`;
