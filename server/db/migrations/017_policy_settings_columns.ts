import type { Knex } from "knex";

// The sending policy's stored settings (docs/API.md, "Sending policy"): quiet hours and the default time zone
// of the account, its throughput cap, a contact's time zone, and on a message the end of the quiet-hours
// window it is held for. Nullable columns without defaults and one constant default: no table rewrite.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE account_settings
      ADD COLUMN quiet_hours_start text,
      ADD COLUMN quiet_hours_end text,
      ADD COLUMN default_time_zone text NOT NULL DEFAULT 'UTC',
      ADD COLUMN max_segments_per_second integer CHECK (max_segments_per_second >= 1),
      ADD CONSTRAINT account_settings_quiet_hours CHECK (
        (quiet_hours_start IS NULL AND quiet_hours_end IS NULL)
        OR (quiet_hours_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' AND quiet_hours_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'
            AND quiet_hours_start <> quiet_hours_end));

    ALTER TABLE contacts ADD COLUMN time_zone text;

    -- Set while a marketing message is held by quiet hours (status scheduled), cleared when it is claimed.
    ALTER TABLE messages ADD COLUMN deferred_until timestamptz;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
