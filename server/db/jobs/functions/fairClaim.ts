import { JOB_LANE_SQL, LANE_OF_KIND } from "../lanes.js";
import { TIMED_PRIORITY } from "../priorities.js";

// The default lane's fair claim as it is now, claim_jobs_v6 (claimJobs.ts calls it; the receipts lane keeps
// claim_jobs_v3, whose webhooks are kept fair by the dispatcher). Versioned by name like v3: the text a version
// creates is never edited once released, and migrations 029, 030 and 035 froze v4, v5 and v6 as they were made
// (v5 added step 7, below; v6 the connector pins: a send job handed to the workers holding a connector's
// sessions is claimed only by one of them, docs/ROUTING.md). A change is a v7 here and a migration that makes it.
//
// Due jobs are shared between the accounts that have due work, by weight (accounts.weight); priority orders
// jobs within an account only. One claim is one fair-share window:
// 1. timed jobs (priority -1: a send paid for a throughput slot, made due at it) of every account, oldest
//    first: their slot is now, and the caps already bound how many an account gets;
// 2. jobs without an account yet (an SMSC's receipt not matched), at most half of the claim (v5: and step 7);
// 3. the rest shared by a ring over the accounts with due jobs, from the account after the worker's cursor
//    (p_after): a skip scan of jobs_account_claim_idx visits at most 4 × p_limit accounts and keeps the first
//    `rest` with a due job; each gets share = max(1, ⌊rest × weight / Σweight⌋) of its due jobs in (priority,
//    run_at) order; what accounts with fewer due jobs leave is offered to those that filled their share; the
//    jobs are then taken in order of (rank in account ÷ weight, ring place) up to the rest: weighted fair
//    queuing within the window. The ring's last account served is returned, and the worker's next claim
//    starts after it, so with more due accounts than a claim can serve each is served in turn.
// 7. (v5) the room the accounts left, to more jobs without an account: a claim is short only when nothing
//    more is due, which is what the worker's producer reads a short claim as.
// plpgsql in small steps, not one SQL statement: PostgreSQL before 18 plans a SQL function's statement on every
// call, and as one statement (a recursive ring, shares, two rounds and the UPDATE in CTEs) planning it cost more
// than running it, and its generic plan was worse still (bench/NOTES.md, 2026-11-26). Each step here is a short
// statement whose plan plpgsql keeps for the connection.
// Cost (docs/ARCHITECTURE.md, "Fair shares"): per account visited, one index descent to find it and up to three
// to see a due job; per account served, up to three more for its jobs (six with the second round) and one
// primary-key probe of accounts for its weight. The next-due time is v3's probe per priority.

/** Waiting jobs of the default lane, walked through the lane index (jobs_lane_priority_claim_idx). */
const LANE_WAITING = `state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = 'default'`;
/**
 * The same jobs, said so that only the account index serves them: its predicate names the kinds of the other
 * lanes, not the lane expression, so a walk of one account can never be planned as a walk of the whole lane
 * filtered by account (what PostgreSQL chose when both matched, with 1,000 accounts: bench/NOTES.md).
 */
const OTHER_LANES = Object.entries(LANE_OF_KIND)
  .filter(([, lane]) => lane !== "default")
  .map(([kind]) => `'${kind}'`)
  .join(", ");
const DUE = `state IN ('available', 'retryable') AND kind NOT IN (${OTHER_LANES})`;

/**
 * The default lane's waiting jobs by account, each account's in claim order read backwards. Descending, so that
 * the ring's probes (the next account, whether it has a due job) land on an account's latest jobs, which are
 * live: its earliest entries are the ones just claimed, dead until the horizon passes them, and a forward probe
 * visited the heap for each of them (three walks over them a claim instead of one).
 */
// CREATE INDEX jobs_account_claim_idx ON jobs (account_id, priority DESC, run_at DESC, id DESC) WHERE <DUE>
// (made by migration 029, whose frozen text spells DUE out).

/** The next account after `after` that has jobs in the default lane (due or not), or null. */
const nextAccount = (after: string) => `(SELECT account_id FROM jobs WHERE ${DUE} AND account_id > ${after} ORDER BY account_id LIMIT 1)`;

/**
 * An account's due jobs of the ordinary priorities, in claim order, at most `n` (locked, others skipped); its
 * plan is checked by test/engine/young-table-plans.test.ts.
 */
export const accountJobs = (account: string, n: string, pin = "") => `
          SELECT x.id, x.priority, x.run_at FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT id, priority, run_at FROM jobs
              WHERE ${DUE}${pin} AND account_id = ${account} AND priority = p.priority AND run_at <= now()
              ORDER BY run_at, id
              LIMIT ${n}
              FOR UPDATE SKIP LOCKED) x
           LIMIT ${n}`;

const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";

/**
 * The fair claim as created by name. `refill` (v5): after the ring, the window's room left goes to more jobs
 * without an account, so a claim comes back short only when nothing more is due. v4 capped those at half the
 * window whatever the accounts left, so a burst of SMSC receipts came back in half-full claims, which the
 * worker's producer reads as "nothing more due" (it waited for a NOTIFY or its safety poll).
 */
const fairClaim = (name: string, refill: boolean, pinned = false) => {
  // (v6) A send job handed to a connector's worker (jobs.connector_id) is claimed only by a worker that holds a
  // session of that connector (p_connectors); the claim takes the pin off, so a job released again is free.
  const pin = pinned ? " AND (connector_id IS NULL OR connector_id = ANY (p_connectors))" : "";
  return `
CREATE FUNCTION ${name}(p_limit integer, p_worker text, p_lease_seconds double precision, p_after uuid${pinned ? ", p_connectors uuid[]" : ""})
  RETURNS TABLE (jobs json, next_due_in_ms double precision, last_account uuid)
  LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
  v_ids uuid[];          -- the jobs taken, in the order they are handed to the worker
  v_rest int;            -- what is left of the window for the accounts' shares
  v_accounts uuid[];     -- the due accounts, in ring order
  v_weights int[];
  v_shares int[];
  v_bounded boolean := false; -- the ring stopped at its visit bound: more due accounts may be waiting
  v_r_ids uuid[];        -- the accounts' jobs read, with their account's ring place and rank in the account
  v_r_ords int[];
  v_r_ranks int[];
  v_spare int;
  v_last uuid;
BEGIN
  -- 1. Timed jobs of every account, oldest first.
  v_ids := ARRAY(
    SELECT id FROM jobs
     WHERE ${LANE_WAITING}${pin} AND priority = ${TIMED_PRIORITY} AND run_at <= now()
     ORDER BY run_at, id
     LIMIT p_limit
     FOR UPDATE SKIP LOCKED);
  -- 2. Jobs without an account yet, at most half of the window.
  v_ids := v_ids || ARRAY(
    SELECT id FROM jobs
     WHERE ${DUE} AND account_id IS NULL AND run_at <= now()
     ORDER BY priority, run_at, id
     LIMIT greatest(0, least(p_limit - cardinality(v_ids), (p_limit + 1) / 2))
     FOR UPDATE SKIP LOCKED);
  v_rest := p_limit - cardinality(v_ids);

  IF v_rest > 0 THEN
    -- 3. The ring: the accounts with waiting jobs after the cursor, then from the start up to it; the first
    --    v_rest with a due job. A scalar subquery tests each, not EXISTS: a semi-join would sort the whole ring.
    WITH RECURSIVE ring(account_id, n, wrapped) AS (
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
      SELECT r.account_id, r.n FROM ring r
       WHERE r.account_id IS NOT NULL
         AND (SELECT true FROM jobs
               WHERE ${DUE}${pin} AND account_id = r.account_id AND priority = ANY ('{0,1,2}'::smallint[]) AND run_at <= now()
               LIMIT 1)
       LIMIT v_rest)
    SELECT array_agg(d.account_id ORDER BY d.n),
           array_agg(coalesce((SELECT a.weight FROM accounts a WHERE a.id = d.account_id), 1) ORDER BY d.n),
           CASE WHEN count(*) < v_rest THEN EXISTS (SELECT 1 FROM ring WHERE n = 4 * p_limit) ELSE false END
      INTO v_accounts, v_weights, v_bounded
      FROM due d;

    IF v_accounts IS NOT NULL THEN
      -- 4. Shares by weight, at least one job each; first round: each account's due jobs up to its share.
      v_shares := ARRAY(SELECT greatest(1, v_rest * u.w / t.total)::int
                          FROM unnest(v_weights) WITH ORDINALITY u(w, i), (SELECT sum(x) AS total FROM unnest(v_weights) x) t
                         ORDER BY u.i);
      SELECT coalesce(array_agg(x.id), '{}'), coalesce(array_agg(x.ord), '{}'), coalesce(array_agg(x.rank), '{}')
        INTO v_r_ids, v_r_ords, v_r_ranks
        FROM (SELECT l.id, a.ord::int AS ord,
                     row_number() OVER (PARTITION BY a.ord ORDER BY l.priority, l.run_at, l.id)::int AS rank
                FROM unnest(v_accounts, v_shares) WITH ORDINALITY AS a(account_id, share, ord)
               CROSS JOIN LATERAL (${accountJobs("a.account_id", "a.share", pin)}) l) x;
      -- 5. What accounts with fewer due jobs left, offered to those that filled their share.
      v_spare := v_rest - cardinality(v_r_ids);
      IF v_spare > 0 THEN
        SELECT v_r_ids || coalesce(array_agg(x.id), '{}'), v_r_ords || coalesce(array_agg(x.ord), '{}'),
               v_r_ranks || coalesce(array_agg(x.rank), '{}')
          INTO v_r_ids, v_r_ords, v_r_ranks
          FROM (SELECT y.id, a.ord::int AS ord,
                       (a.share + row_number() OVER (PARTITION BY a.ord ORDER BY y.priority, y.run_at, y.id))::int AS rank
                  FROM unnest(v_accounts, v_shares) WITH ORDINALITY AS a(account_id, share, ord)
                 CROSS JOIN LATERAL (
                   SELECT z.* FROM (${accountJobs("a.account_id", "a.share + v_spare", pin)}) z
                    ORDER BY z.priority, z.run_at, z.id OFFSET a.share) y
                 WHERE cardinality(array_positions(v_r_ords, a.ord::int)) = a.share) x;
      END IF;
      -- 6. Weighted fair queuing inside the window: by rank in the account ÷ its weight, then ring place.
      SELECT v_ids || coalesce(array_agg(c.id ORDER BY c.rank::float8 / v_weights[c.ord], c.ord, c.rank), '{}'),
             v_accounts[max(c.ord)]
        INTO v_ids, v_last
        FROM (SELECT u.id, u.ord, u.rank FROM unnest(v_r_ids, v_r_ords, v_r_ranks) AS u(id, ord, rank)
               ORDER BY u.rank::float8 / v_weights[u.ord], u.ord, u.rank
               LIMIT v_rest) c;
    END IF;
  END IF;
${
  refill
    ? `  -- 7. Room the accounts left: more jobs without an account.
  IF cardinality(v_ids) < p_limit THEN
    v_ids := v_ids || ARRAY(
      SELECT id FROM jobs
       WHERE ${DUE} AND account_id IS NULL AND run_at <= now() AND id <> ALL(v_ids)
       ORDER BY priority, run_at, id
       LIMIT p_limit - cardinality(v_ids)
       FOR UPDATE SKIP LOCKED);
  END IF;
`
    : ""
}
  RETURN QUERY
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END${pinned ? ",\n           connector_id = NULL" : ""}
     WHERE j.id = ANY(v_ids)
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.account_id AS "accountId")
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY array_position(v_ids, c.id)), '[]') FROM claimed c),
         CASE WHEN v_bounded THEN 0::double precision
              ELSE (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
                      FROM (VALUES (${TIMED_PRIORITY}::smallint), (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
                     CROSS JOIN LATERAL (
                       SELECT run_at FROM jobs
                        WHERE ${LANE_WAITING} AND priority = p.priority AND run_at > now()
                        ORDER BY run_at
                        LIMIT 1) n) END,
         v_last;
END
$$;`;
};

// v4 and v5 were dropped by migration 043; each version's text as it ran is frozen in its migration (029, 030,
// 035). What this file makes for v6 is held to the database's function by test/engine/claim-functions.test.ts.
export const CLAIM_JOBS_V6 = fairClaim("claim_jobs_v6", true, true);
