import type { Knex } from "knex";
import { run, sql } from "../sql.js";
import { moveCampaignSendsSql } from "./parkCampaignSends.js";
import { notifyWhenSql } from "./wakeUp.js";

/**
 * Makes the send jobs of a resumed campaign's scheduled messages due again: each at its message's own time, or
 * now when that has passed, its priority kept, so they join the account's fair share in the order they were
 * made (job ids are time-ordered, the claim's tie-break). Wakes the workers. Returns how many were made due.
 *
 * The campaign's send jobs running now are made due too: a worker may have read the campaign as paused before
 * this commit and be snoozing its message; its snooze keeps this earlier time (snoozeJobs). Running jobs are
 * few (jobs_lease_idx).
 */
export async function makeCampaignSendsDue(tx: Knex.Transaction, accountId: string, campaignId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`WITH due AS (${moveCampaignSendsSql(accountId, campaignId, sql`GREATEST(m.scheduled_at, now())`)}), judged AS (
          UPDATE jobs j SET run_at = now()
           WHERE j.account_id = ${accountId} AND j.state = 'running' AND j.kind = 'send_message'
             AND j.id IN (SELECT m.job_id FROM messages m
                           WHERE m.account_id = ${accountId} AND m.campaign_id = ${campaignId} AND m.status = 'scheduled')
          RETURNING j.id
        )
        SELECT (SELECT count(*)::int FROM due) AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM due) OR EXISTS (SELECT 1 FROM judged)`)} AS notified`,
  );
  return rows[0]!.n;
}
