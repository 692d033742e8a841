import type { Knex } from "knex";

// Throughput caps (docs/API.md, "Sending policy"; docs/ARCHITECTURE.md, "Throughput caps"), shared by every
// worker process through these two tables, never by counters in a process.
//
// throughput_buckets: one GCRA bucket per key ('account:<id>' for an account's maxSegmentsPerSecond, 'link' for
// PROVIDER_MAX_SEGMENTS_PER_SECOND). tat, the theoretical arrival time, is when everything admitted so far has
// been paid off at the cap's rate; a message of n segments moves it n / rate seconds later. Taken under the row
// lock (SELECT … FOR UPDATE in key order), so any number of workers and the pacer share it exactly.
//
// throttled_sends: the messages waiting for throughput, one narrow row each (the hot tables stay as they are),
// in release order: priority (0 high, 1 normal, 2 low, as jobs.priority), then scheduled_at, then message_id.
// While waiting, the message stays `scheduled` (cancellable) and its send job is snoozed far ahead. The pacer
// (jobs/maintenance/releaseThrottledSends.ts) takes the tokens for the next rows that fit, sets released_at and
// send_at (the row is paid) and makes the job due at send_at; the send path deletes a paid row when it sends.
// No foreign keys: a row that outlives its message (status no longer scheduled) is stale and the pacer deletes
// it, so deleting messages or accounts never has to look here.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE throughput_buckets (
      key  text PRIMARY KEY,
      tat  timestamptz NOT NULL
    ) WITH (fillfactor = 50);

    CREATE TABLE throttled_sends (
      message_id    uuid PRIMARY KEY,
      account_id    uuid NOT NULL,
      priority      smallint NOT NULL CHECK (priority BETWEEN 0 AND 2),
      scheduled_at  timestamptz NOT NULL,
      segments      integer NOT NULL CHECK (segments >= 1),
      valid_until   timestamptz,
      held_at       timestamptz NOT NULL DEFAULT now(),
      released_at   timestamptz,
      send_at       timestamptz,
      CONSTRAINT throttled_sends_paid CHECK ((released_at IS NULL) = (send_at IS NULL))
    );
    -- Release order per account: the pacer's walk of each account's queue, the send path's "anything ahead?", and
    -- (by a loose walk over the accounts) the whole queue's head for the link's cap. The only index in release
    -- order on purpose: with a second one across accounts, the planner could walk that one filtering by account,
    -- reading a big account's backlog to find a small account's next message.
    CREATE INDEX throttled_sends_account_order_idx ON throttled_sends (account_id, priority, scheduled_at, message_id)
      WHERE released_at IS NULL;
    -- Rows whose message's validity has ended (its job fails it then) and paid rows never sent: the pacer's sweep.
    CREATE INDEX throttled_sends_valid_until_idx ON throttled_sends (valid_until) WHERE valid_until IS NOT NULL;
    CREATE INDEX throttled_sends_released_idx ON throttled_sends (released_at) WHERE released_at IS NOT NULL;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
