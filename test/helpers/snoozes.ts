// Counts every time a send job goes back to wait (a snooze: running → available), by a trigger of the test
// file's database, to tell how often messages were woken to be refused again.
import type { Knex } from "knex";

/** Installs the counting trigger (once per database). */
export async function countSnoozes(db: Knex): Promise<void> {
  await db.raw("CREATE TABLE test_snoozes (job_id uuid NOT NULL)");
  await db.raw(`CREATE FUNCTION test_count_snooze() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO test_snoozes VALUES (NEW.id); RETURN NULL; END $$`);
  await db.raw(`CREATE TRIGGER test_count_snooze AFTER UPDATE ON jobs FOR EACH ROW
                WHEN (OLD.state = 'running' AND NEW.state = 'available') EXECUTE FUNCTION test_count_snooze()`);
}

/** The snoozes of these messages' send jobs since countSnoozes. */
export async function snoozesOf(db: Knex, messageIds: string[]): Promise<number> {
  const { rows } = await db.raw(
    "SELECT count(*)::int AS n FROM test_snoozes s JOIN messages m ON m.job_id = s.job_id WHERE m.id = ANY(?::uuid[])",
    [messageIds],
  );
  return rows[0].n as number;
}
