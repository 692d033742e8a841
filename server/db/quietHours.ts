// messages.deferred_until, the mark of a marketing message held by quiet hours (services/sendingPolicy/quietHoursStage.ts): set
// while it is held, cleared when it is judged open again or claimed for sending (claimMessagesForSending).
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

/**
 * Sets each message's deferred_until (null: no longer held) in ONE statement, for those still `scheduled`:
 * a message cancelled meanwhile keeps none.
 */
export async function setDeferredUntil(db: Knex, marks: { id: string; accountId: string; until: Date | null }[]): Promise<void> {
  if (marks.length === 0) return;
  const ids = marks.map((m) => m.id);
  await run(
    db,
    sql`UPDATE messages m SET deferred_until = d.until
          FROM unnest(${ids}::uuid[], ${marks.map((m) => m.accountId)}::uuid[], ${marks.map((m) => m.until?.toISOString() ?? null)}::timestamptz[])
            AS d(id, account_id, until)
         WHERE m.id = ANY(${ids}::uuid[]) AND m.account_id = d.account_id AND m.id = d.id AND m.status = 'scheduled'`,
  );
}
