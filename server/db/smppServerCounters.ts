// The SMPP server processes' counts of their clients' submit_sm (smpp_server_counters, migration 048): each
// process writes its whole counts every second; /metrics reads their sums.
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export interface SubmitCounts {
  accountId: string;
  accepted: number;
  refused: number;
  throttled: number;
}

/** Writes this process's counts (absolute, not increments), and deletes rows no process wrote for a day. */
export async function writeSmppServerCounters(db: Knex, serverId: string, counts: SubmitCounts[]): Promise<void> {
  await run(db, sql`DELETE FROM smpp_server_counters WHERE written_at < now() - interval '1 day'`);
  if (counts.length === 0) return;
  await run(
    db,
    sql`INSERT INTO smpp_server_counters AS c (server_id, account_id, accepted, refused, throttled)
        SELECT ${serverId}, a, n1, n2, n3
          FROM unnest(${counts.map((c) => c.accountId)}::uuid[], ${counts.map((c) => c.accepted)}::bigint[],
                      ${counts.map((c) => c.refused)}::bigint[], ${counts.map((c) => c.throttled)}::bigint[]) AS t(a, n1, n2, n3)
        ON CONFLICT (server_id, account_id) DO UPDATE
          SET accepted = excluded.accepted, refused = excluded.refused, throttled = excluded.throttled, written_at = now()`,
  );
}

/** For /metrics: each account's counts summed over every SMPP server process. */
export async function readSmppServerCounters(db: Knex, timeoutMs: number): Promise<SubmitCounts[]> {
  const { rows } = await sql`SELECT account_id AS "accountId", sum(accepted)::float8 AS accepted, sum(refused)::float8 AS refused,
                                    sum(throttled)::float8 AS throttled
                               FROM smpp_server_counters GROUP BY account_id`
    .forBuilder(db)
    .timeout(timeoutMs);
  return rows as SubmitCounts[];
}
