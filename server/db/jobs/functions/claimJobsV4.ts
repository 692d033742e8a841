import { JOB_LANE_SQL, LANE_OF_KIND } from "../lanes.js";
import { TIMED_PRIORITY } from "../priorities.js";

// claim_jobs_v4: the default lane's fair claim (claimJobs.ts calls it; the receipts lane keeps claim_jobs_v3,
// whose webhooks are kept fair by the dispatcher). Versioned by name like v3: never edited once released.
//
// Due jobs are shared between the accounts that have due work, by weight (accounts.weight); priority orders
// jobs within an account only. One claim is one fair-share window:
// 1. timed jobs (priority -1: a send paid for a throughput slot, made due at it) of every account, oldest
//    first: their slot is now, and the caps already bound how many an account gets;
// 2. jobs without an account yet (an SMSC's receipt not matched), at most half of the claim;
// 3. the rest shared by a ring over the accounts with due jobs, from the account after the worker's cursor
//    (p_after): a skip scan of jobs_account_claim_idx visits at most 4 × p_limit accounts and keeps the first
//    p_limit with a due job; each gets share = max(1, ⌊rest × weight / Σweight⌋) of its due jobs in (priority,
//    run_at) order; what accounts with fewer due jobs leave is offered to those that filled their share; the
//    jobs are then taken in order of (rank in account ÷ weight, ring place) up to the rest: weighted fair
//    queuing within the window. The ring's last account served is returned, and the worker's next claim
//    starts after it, so with more due accounts than a claim can serve each is served in turn.
// plpgsql, not sql: PostgreSQL before 18 plans a SQL function's statement again on every call, and planning
// this one cost more than running it; plpgsql keeps the plan for the connection.
// Cost (docs/ARCHITECTURE.md, "Fair shares"): per account visited, one index descent to find it and up to three
// to see a due job; per account served, up to three more for its jobs (six with the second round) and one
// primary-key probe of accounts for its weight. The next-due time is v3's probe per priority.

/** Waiting jobs of the default lane, walked through the lane index (jobs_lane_priority_claim_idx). */
const LANE_WAITING = `state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = 'default'`;
/**
 * The same jobs, said so that only the account index serves them: its predicate names the kinds of the other
 * lanes, not the lane expression, so a walk of one account can never be planned as a walk of the whole lane
 * filtered by account (what PostgreSQL chose when both matched: 33 ms a claim with 1,000 accounts).
 */
const OTHER_LANES = Object.entries(LANE_OF_KIND)
  .filter(([, lane]) => lane !== "default")
  .map(([kind]) => `'${kind}'`)
  .join(", ");
const DUE = `state IN ('available', 'retryable') AND kind NOT IN (${OTHER_LANES})`;

/** The default lane's jobs by account, in the order an account's jobs are claimed (the fair claim walks it). */
export const ACCOUNT_CLAIM_INDEX = `CREATE INDEX jobs_account_claim_idx ON jobs (account_id, priority, run_at, id) WHERE ${DUE}`;

/** The next account after `after` that has jobs in the default lane (due or not), or null. */
const nextAccount = (after: string) =>
  `(SELECT account_id FROM jobs WHERE ${DUE} AND account_id > ${after} ORDER BY account_id LIMIT 1)`;

/**
 * An account's due jobs of the ordinary priorities, in claim order, at most `n` (locked, others skipped); its
 * plan is checked by test/engine/young-table-plans.test.ts.
 */
export const accountJobs = (account: string, n: string) => `
          SELECT x.id, x.priority, x.run_at FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT id, priority, run_at FROM jobs
              WHERE ${DUE} AND account_id = ${account} AND priority = p.priority AND run_at <= now()
              ORDER BY run_at, id
              LIMIT ${n}
              FOR UPDATE SKIP LOCKED) x
           LIMIT ${n}`;

const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";

export const CLAIM_JOBS_V4 = `
CREATE FUNCTION claim_jobs_v4(p_limit integer, p_worker text, p_lease_seconds double precision, p_after uuid)
  RETURNS TABLE (jobs json, next_due_in_ms double precision, last_account uuid)
  LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH RECURSIVE
  timed AS (
    SELECT id, row_number() OVER (ORDER BY run_at, id) AS ord FROM (
      SELECT id, run_at FROM jobs
       WHERE ${LANE_WAITING} AND priority = ${TIMED_PRIORITY} AND run_at <= now()
       ORDER BY run_at, id
       LIMIT p_limit
       FOR UPDATE SKIP LOCKED) t),
  unmatched AS (
    SELECT id, (SELECT count(*) FROM timed) + row_number() OVER (ORDER BY priority, run_at, id) AS ord FROM (
      SELECT id, priority, run_at FROM jobs
       WHERE ${DUE} AND account_id IS NULL AND run_at <= now()
       ORDER BY priority, run_at, id
       LIMIT greatest(0, least(p_limit - (SELECT count(*) FROM timed), (p_limit + 1) / 2))
       FOR UPDATE SKIP LOCKED) u),
  window_size AS (
    SELECT (p_limit - (SELECT count(*) FROM timed) - (SELECT count(*) FROM unmatched))::int AS rest),
  -- The ring: accounts with default-lane jobs after the cursor, then from the start up to it.
  ring(account_id, n, wrapped) AS (
    SELECT coalesce(s.a, ${nextAccount(NIL)}), 1, s.a IS NULL
      FROM (SELECT ${nextAccount(`coalesce(p_after, ${NIL})`)} AS a) s
    UNION ALL
    SELECT nx.a, r.n + 1, nx.wrapped
      FROM ring r
     CROSS JOIN LATERAL (SELECT ${nextAccount("r.account_id")} AS a) f
     CROSS JOIN LATERAL (SELECT CASE WHEN f.a IS NULL AND NOT r.wrapped THEN ${nextAccount(NIL)} ELSE f.a END AS a,
                                r.wrapped OR f.a IS NULL AS wrapped) nx
     WHERE r.account_id IS NOT NULL AND nx.a IS NOT NULL AND r.n < 4 * p_limit
       AND NOT (nx.wrapped AND nx.a > coalesce(p_after, ${NIL}))),
  due AS (
    SELECT r.account_id, r.n, coalesce((SELECT a.weight FROM accounts a WHERE a.id = r.account_id), 1) AS weight
      FROM ring r
     WHERE r.account_id IS NOT NULL AND (SELECT rest FROM window_size) > 0
       -- A scalar subquery, not EXISTS: a semi-join would sort the whole ring first instead of stopping at the LIMIT.
       AND (SELECT true FROM jobs
             WHERE ${DUE} AND account_id = r.account_id AND priority = ANY ('{0,1,2}'::smallint[]) AND run_at <= now()
             LIMIT 1)
     LIMIT (SELECT rest FROM window_size)),
  shares AS (
    SELECT account_id, n, weight,
           greatest(1, floor((SELECT rest FROM window_size) * weight / sum(weight) OVER ()))::int AS share
      FROM due),
  first_round AS (
    SELECT s.account_id, s.n, s.weight, s.share, l.id,
           row_number() OVER (PARTITION BY s.account_id ORDER BY l.priority, l.run_at, l.id) AS rn
      FROM shares s
     CROSS JOIN LATERAL (${accountJobs("s.account_id", "s.share")}) l),
  filled AS (
    SELECT account_id, n, weight, share FROM first_round GROUP BY account_id, n, weight, share HAVING count(*) = share),
  spare AS (
    SELECT greatest(0, (SELECT rest FROM window_size) - (SELECT count(*) FROM first_round))::int AS n),
  second_round AS (
    SELECT f.account_id, f.n, f.weight, l.id, f.share + row_number() OVER (PARTITION BY f.account_id ORDER BY l.priority, l.run_at, l.id) AS rn
      FROM filled f
     CROSS JOIN LATERAL (
       SELECT y.id, y.priority, y.run_at FROM (${accountJobs("f.account_id", "f.share + (SELECT n FROM spare)")}) y
        ORDER BY y.priority, y.run_at, y.id OFFSET f.share) l
     WHERE (SELECT n FROM spare) > 0),
  chosen AS (
    SELECT id, account_id, n, (SELECT count(*) FROM timed) + (SELECT count(*) FROM unmatched)
                  + row_number() OVER (ORDER BY rn::float8 / weight, n, rn) AS ord
      FROM (SELECT account_id, n, weight, id, rn FROM first_round
            UNION ALL SELECT account_id, n, weight, id, rn FROM second_round) p
     ORDER BY rn::float8 / weight, n, rn
     LIMIT (SELECT rest FROM window_size)),
  picked AS (
    SELECT id, ord FROM timed UNION ALL SELECT id, ord FROM unmatched UNION ALL SELECT id, ord FROM chosen),
  claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
      FROM picked p
     WHERE j.id = p.id
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.account_id AS "accountId", p.ord)
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY c.ord), '[]') FROM claimed c),
         CASE WHEN (SELECT count(*) FROM due) < (SELECT rest FROM window_size)
                   AND EXISTS (SELECT 1 FROM ring WHERE n = 4 * p_limit)
              THEN 0::double precision
              ELSE (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
                      FROM (VALUES (${TIMED_PRIORITY}::smallint), (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
                     CROSS JOIN LATERAL (
                       SELECT run_at FROM jobs
                        WHERE ${LANE_WAITING} AND priority = p.priority AND run_at > now()
                        ORDER BY run_at
                        LIMIT 1) n) END,
         (SELECT c.account_id FROM chosen c ORDER BY c.n DESC LIMIT 1);
END
$$;`;

/** The default lane's fair claim, as db/jobs/claimJobs.ts prepares it. */
export const CLAIM_FAIR_CALL =
  'SELECT jobs, next_due_in_ms AS "nextDueInMs", last_account AS "lastAccount" FROM claim_jobs_v4(:limit::int, :workerId::text, :leaseSeconds::float8, :after::uuid)';
