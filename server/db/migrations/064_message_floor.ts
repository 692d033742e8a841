import type { Knex } from "knex";

// The message at the durable floor (docs/ARCHITECTURE.md, "The life of a message"): an update after the claim is
// a HOT update (no index entry written) when it changes no column any index of `messages` holds in its keys or
// its predicate. So no index holds `status` (which every step changes) nor `submitted_via` (set by the claim);
// a status is found through a column that is set once, in the step that already writes an index entry:
// - pending (scheduled or sending): `sent_at`, `failed_at`, `cancelled_at` all null, the predicate of
//   messages_pending_page_idx; the send (sent_at, with the provider's id, itself indexed) takes a message out;
// - failed and undelivered: `failed_at`, new here, when the message reached either (messages_failed_page_idx);
// - cancelled: `cancelled_at` (messages_cancelled_page_idx);
// - sent and delivered, almost every message: the account's page index, the status read from the row.
// The claim (scheduled → sending) and the receipt (sent → delivered) then change no indexed column.
// History is derived from the row's own timestamps (created_at, sent_at, and the final one): nothing writes
// message_status_history any more. `failed_at` is filled here for the failed and undelivered messages before
// this release from their stored history (the only thing the table held that the row did not), so no read
// needs the table. Expand, then contract: a worker of the release before this one, running beside it during a
// rolling upgrade, still writes history rows and fails messages without failed_at (such a message shows no
// failed step in its history and is missing from the failed list until the contract). A release later, the
// contract fills failed_at again for those, makes it required for a failed or undelivered message (a CHECK)
// and drops message_status_history (docs/OPERATIONS.md, "Upgrades").
// fillfactor 75: room on each page for the updates of the rows on it, which a HOT update needs.
// Who writes failed_at: the status change (db/messages/statusChange.ts), nothing else.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages ADD COLUMN failed_at timestamptz;
    UPDATE messages m SET failed_at = coalesce(
        (SELECT max(h.at) FROM message_status_history h WHERE h.message_id = m.id AND h.status = m.status), m.created_at)
      WHERE m.status IN ('failed', 'undelivered');
    DROP INDEX messages_campaign_idx;
    DROP INDEX messages_status_page_idx;
    DROP INDEX messages_pending_page_idx;
    DROP INDEX messages_outcome_unknown_idx;
    CREATE INDEX messages_pending_page_idx ON messages (account_id, created_at DESC, id DESC)
      WHERE direction = 'outbound' AND sent_at IS NULL AND failed_at IS NULL AND cancelled_at IS NULL;
    CREATE INDEX messages_failed_page_idx ON messages (account_id, created_at DESC, id DESC) WHERE failed_at IS NOT NULL;
    CREATE INDEX messages_cancelled_page_idx ON messages (account_id, created_at DESC, id DESC) WHERE cancelled_at IS NOT NULL;
    CREATE INDEX messages_outcome_unknown_idx ON messages (recipient) WHERE outcome_unknown_at IS NOT NULL;
    ALTER TABLE messages SET (fillfactor = 75);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages RESET (fillfactor);
    DROP INDEX messages_outcome_unknown_idx;
    DROP INDEX messages_cancelled_page_idx;
    DROP INDEX messages_failed_page_idx;
    DROP INDEX messages_pending_page_idx;
    CREATE INDEX messages_outcome_unknown_idx ON messages (submitted_via, recipient)
      WHERE status = 'sending' AND outcome_unknown_at IS NOT NULL;
    CREATE INDEX messages_pending_page_idx ON messages (account_id, created_at DESC, id DESC)
      WHERE status IN ('scheduled', 'sending');
    CREATE INDEX messages_status_page_idx ON messages (account_id, status, created_at DESC, id DESC)
      WHERE status IN ('sent', 'failed', 'undelivered', 'cancelled');
    CREATE INDEX messages_campaign_idx ON messages (campaign_id, status) WHERE campaign_id IS NOT NULL;
    ALTER TABLE messages DROP COLUMN failed_at;
  `);
}
