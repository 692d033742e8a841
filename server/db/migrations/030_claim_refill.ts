import type { Knex } from "knex";

// claim_jobs_v5: claim_jobs_v4 with its window's room refilled with jobs that have no account yet (SMSC
// receipts), so a claim comes back short only when nothing more is due (db/jobs/functions/fairClaim.ts; the text frozen below).
// claim_jobs_v4 stays for workers of the previous release during a rolling upgrade.
const CLAIM_JOBS_V5 = `
CREATE FUNCTION claim_jobs_v5(p_limit integer, p_worker text, p_lease_seconds double precision, p_after uuid)
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
     WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = 'default' AND priority = -1 AND run_at <= now()
     ORDER BY run_at, id
     LIMIT p_limit
     FOR UPDATE SKIP LOCKED);
  -- 2. Jobs without an account yet, at most half of the window.
  v_ids := v_ids || ARRAY(
    SELECT id FROM jobs
     WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id IS NULL AND run_at <= now()
     ORDER BY priority, run_at, id
     LIMIT greatest(0, least(p_limit - cardinality(v_ids), (p_limit + 1) / 2))
     FOR UPDATE SKIP LOCKED);
  v_rest := p_limit - cardinality(v_ids);

  IF v_rest > 0 THEN
    -- 3. The ring: the accounts with waiting jobs after the cursor, then from the start up to it; the first
    --    v_rest with a due job. A scalar subquery tests each, not EXISTS: a semi-join would sort the whole ring.
    WITH RECURSIVE ring(account_id, n, wrapped) AS (
      SELECT coalesce(s.a, (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > '00000000-0000-0000-0000-000000000000'::uuid ORDER BY account_id LIMIT 1)), 1, s.a IS NULL
        FROM (SELECT (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > coalesce(p_after, '00000000-0000-0000-0000-000000000000'::uuid) ORDER BY account_id LIMIT 1) AS a) s
      UNION ALL
      SELECT nx.a, r.n + 1, nx.wrapped
        FROM ring r
       CROSS JOIN LATERAL (SELECT (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > r.account_id ORDER BY account_id LIMIT 1) AS a) f
       CROSS JOIN LATERAL (SELECT CASE WHEN f.a IS NULL AND NOT r.wrapped THEN (SELECT account_id FROM jobs WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id > '00000000-0000-0000-0000-000000000000'::uuid ORDER BY account_id LIMIT 1) ELSE f.a END AS a,
                                  r.wrapped OR f.a IS NULL AS wrapped) nx
       WHERE r.account_id IS NOT NULL AND nx.a IS NOT NULL AND r.n < 4 * p_limit
         AND NOT (nx.wrapped AND nx.a > coalesce(p_after, '00000000-0000-0000-0000-000000000000'::uuid))),
    due AS (
      SELECT r.account_id, r.n FROM ring r
       WHERE r.account_id IS NOT NULL
         AND (SELECT true FROM jobs
               WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id = r.account_id AND priority = ANY ('{0,1,2}'::smallint[]) AND run_at <= now()
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
               CROSS JOIN LATERAL (
          SELECT x.id, x.priority, x.run_at FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT id, priority, run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id = a.account_id AND priority = p.priority AND run_at <= now()
              ORDER BY run_at, id
              LIMIT a.share
              FOR UPDATE SKIP LOCKED) x
           LIMIT a.share) l) x;
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
                   SELECT z.* FROM (
          SELECT x.id, x.priority, x.run_at FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT id, priority, run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id = a.account_id AND priority = p.priority AND run_at <= now()
              ORDER BY run_at, id
              LIMIT a.share + v_spare
              FOR UPDATE SKIP LOCKED) x
           LIMIT a.share + v_spare) z
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
  -- 7. Room the accounts left: more jobs without an account.
  IF cardinality(v_ids) < p_limit THEN
    v_ids := v_ids || ARRAY(
      SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND kind NOT IN ('deliver_receipt') AND account_id IS NULL AND run_at <= now() AND id <> ALL(v_ids)
       ORDER BY priority, run_at, id
       LIMIT p_limit - cardinality(v_ids)
       FOR UPDATE SKIP LOCKED);
  END IF;

  RETURN QUERY
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
     WHERE j.id = ANY(v_ids)
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.account_id AS "accountId")
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY array_position(v_ids, c.id)), '[]') FROM claimed c),
         CASE WHEN v_bounded THEN 0::double precision
              ELSE (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
                      FROM (VALUES (-1::smallint), (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
                     CROSS JOIN LATERAL (
                       SELECT run_at FROM jobs
                        WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = 'default' AND priority = p.priority AND run_at > now()
                        ORDER BY run_at
                        LIMIT 1) n) END,
         v_last;
END
$$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(CLAIM_JOBS_V5);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
