import type { Knex } from "knex";

// Every statement of an account's work names its account (docs/SCALING.md, "Past one server: Citus"): the
// distribution column of a sharded deployment, and today a filter that keeps one account's work on its rows.
// - jobs.account_id: the account whose message, receipt or campaign a job works on. Returned by the claim, so a
//   handler's statements filter by it. NULL for a job no account owns yet: an SMSC's receipt (the carrier names
//   only its own id) until it is matched.
// - message_status_history.account_id: the history is read per account (the API's get and list).
// - campaign_recipients.account_id: the audience snapshot is written from the account's contacts and read by
//   the account's fan-out.
//
// Rolling upgrade: the previous release inserts both without account_id while this one runs beside it.
// - A job: the claim fills a missing account from the row its payload names (job_account_of), once, in the same
//   UPDATE, and returns it. Pending jobs are filled here.
// - A history entry, an audience row: a trigger fills it from its message or campaign (which exists before
//   them: history entries are written only on status changes, the audience after its campaign). The triggers
//   fire only WHEN account_id IS NULL, so this release pays nothing for them.
// Backfill of existing history in batches of 10,000 ids, each its own transaction (this migration runs
// outside one), so a long history never holds a long lock or a long transaction; re-running it after an
// interruption carries on where it stopped. Then NOT NULL as a CHECK added NOT VALID and validated apart
// (no exclusive lock while every row is read).
export const config = { transaction: false };

const BATCH = 10_000;

/** A trigger that gives a row inserted without account_id the account of the row `column` names in `parent`. */
const fillAccountTrigger = (table: string, parent: string, column: string) => `
    CREATE OR REPLACE FUNCTION ${table}_account_id() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.account_id := (SELECT account_id FROM ${parent} WHERE id = NEW.${column});
      RETURN NEW;
    END
    $$;
    DROP TRIGGER IF EXISTS ${table}_account_id ON ${table};
    CREATE TRIGGER ${table}_account_id BEFORE INSERT ON ${table}
      FOR EACH ROW WHEN (NEW.account_id IS NULL) EXECUTE FUNCTION ${table}_account_id();`;

// Both claim_jobs (with and without a lane, migrations 005 and 016) as they were, plus the account: the claimed
// row's account_id, filled for a job of the previous release, and returned.
const CLAIM_HEAD = `
      RETURNS TABLE (jobs json, next_due_in_ms double precision)
      LANGUAGE sql
      SET enable_sort = off
      SET enable_bitmapscan = off
    AS $$
      WITH claimed AS (
        UPDATE jobs j
           SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
               locked_until = now() + make_interval(secs => p_lease_seconds),
               account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE jobs ADD COLUMN IF NOT EXISTS account_id uuid;
    ALTER TABLE message_status_history ADD COLUMN IF NOT EXISTS account_id uuid;
    ALTER TABLE campaign_recipients ADD COLUMN IF NOT EXISTS account_id uuid;

    CREATE OR REPLACE FUNCTION job_account_of(p_kind text, p_payload jsonb) RETURNS uuid LANGUAGE sql STABLE AS $$
      SELECT CASE p_kind
        WHEN 'send_message' THEN (SELECT account_id FROM messages WHERE id = (p_payload->>'messageId')::uuid)
        WHEN 'deliver_receipt' THEN (SELECT account_id FROM webhook_deliveries WHERE id = (p_payload->>'deliveryId')::uuid)
        WHEN 'campaign_fanout' THEN (SELECT account_id FROM campaigns WHERE id = (p_payload->>'campaignId')::uuid)
        WHEN 'provider_report' THEN (SELECT account_id FROM messages WHERE provider_message_id = p_payload->>'providerMessageId'
                                      ORDER BY created_at DESC LIMIT 1)
      END
    $$;

    ${fillAccountTrigger("message_status_history", "messages", "message_id")}
    ${fillAccountTrigger("campaign_recipients", "campaigns", "campaign_id")}

    CREATE OR REPLACE FUNCTION claim_jobs(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)
${CLAIM_HEAD}
         WHERE j.id = ANY(ARRAY(
  SELECT l.id FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
    CROSS JOIN LATERAL (
      SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane AND priority = p.priority AND run_at <= now()
       ORDER BY run_at, id
       LIMIT p_limit
       FOR UPDATE SKIP LOCKED) l
   LIMIT p_limit))
        RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
                  j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
      )
      SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                        'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                      ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),
             (
  SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
    FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
    CROSS JOIN LATERAL (
      SELECT run_at FROM jobs
       WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane AND priority = p.priority AND run_at > now()
       ORDER BY run_at
       LIMIT 1) n)
    $$;

    CREATE OR REPLACE FUNCTION claim_jobs(p_limit integer, p_worker text, p_lease_seconds double precision)
${CLAIM_HEAD}
         WHERE j.id = ANY(ARRAY(
                 SELECT id FROM jobs
                  WHERE state IN ('available', 'retryable') AND run_at <= now()
                  ORDER BY run_at, id
                  LIMIT p_limit
                  FOR UPDATE SKIP LOCKED))
        RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
                  j.created_at AS "createdAt", j.account_id AS "accountId"
      )
      SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),
             (SELECT EXTRACT(EPOCH FROM min(run_at) - now())::double precision * 1000 FROM jobs
               WHERE state IN ('available', 'retryable') AND run_at > now())
    $$;

    UPDATE jobs SET account_id = job_account_of(kind, payload)
     WHERE account_id IS NULL AND state IN ('available', 'retryable', 'running');
  `);
  // By ranges of the identity key: each batch reads only its own rows, however much is already filled.
  const { rows } = await knex.raw(`SELECT min(id)::bigint AS lo, max(id)::bigint AS hi FROM message_status_history`);
  const lo = rows[0].lo === null ? 1 : Number(rows[0].lo);
  const hi = rows[0].hi === null ? 0 : Number(rows[0].hi);
  for (let from = lo; from <= hi; from += BATCH) {
    await knex.raw(
      `UPDATE message_status_history h SET account_id = m.account_id
         FROM messages m
        WHERE h.id >= ? AND h.id < ? AND h.account_id IS NULL AND m.id = h.message_id`,
      [from, from + BATCH],
    );
  }
  // Audiences campaign by campaign, 100 campaigns at a time (an audience is at most a campaign's recipients limit).
  for (let after = "00000000-0000-0000-0000-000000000000"; ;) {
    const { rows: page } = await knex.raw(`SELECT id FROM campaigns WHERE id > ? ORDER BY id LIMIT 100`, [after]);
    if (page.length === 0) break;
    after = page.at(-1).id;
    await knex.raw(
      `UPDATE campaign_recipients r SET account_id = c.account_id FROM campaigns c
        WHERE c.id = ANY(?::uuid[]) AND r.campaign_id = c.id AND r.account_id IS NULL`,
      [page.map((c: { id: string }) => c.id)],
    );
  }
  await knex.raw(`
    ALTER TABLE campaign_recipients DROP CONSTRAINT IF EXISTS campaign_recipients_account_id_not_null;
    ALTER TABLE campaign_recipients ADD CONSTRAINT campaign_recipients_account_id_not_null
      CHECK (account_id IS NOT NULL) NOT VALID;
    ALTER TABLE campaign_recipients VALIDATE CONSTRAINT campaign_recipients_account_id_not_null;
    ALTER TABLE message_status_history DROP CONSTRAINT IF EXISTS message_status_history_account_id_not_null;
    ALTER TABLE message_status_history ADD CONSTRAINT message_status_history_account_id_not_null
      CHECK (account_id IS NOT NULL) NOT VALID;
    ALTER TABLE message_status_history VALIDATE CONSTRAINT message_status_history_account_id_not_null;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
