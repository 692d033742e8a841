import type { Knex } from "knex";

export interface QuietHours {
  /** Local time the window opens, HH:MM. */
  start: string;
  /** Local time it closes, HH:MM. */
  end: string;
}

export interface AccountSettingsRow {
  optOutReply: string | null;
  optInReply: string | null;
  helpReply: string | null;
  quietHours: QuietHours | null;
  defaultTimeZone: string;
  maxSegmentsPerSecond: number | null;
  smartEncoding: boolean;
}

/** The contract's defaults, also the column defaults of account_settings (server/db/schema.sql). */
export const DEFAULT_SETTINGS: AccountSettingsRow = {
  optOutReply: "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
  optInReply: "You have been resubscribed. Reply STOP to unsubscribe.",
  helpReply: "Reply STOP to unsubscribe. Msg & data rates may apply.",
  quietHours: null,
  defaultTimeZone: "UTC",
  maxSegmentsPerSecond: null,
  smartEncoding: false,
};

const SELECT = [
  "opt_out_reply as optOutReply",
  "opt_in_reply as optInReply",
  "help_reply as helpReply",
  "quiet_hours_start as quietStart",
  "quiet_hours_end as quietEnd",
  "default_time_zone as defaultTimeZone",
  "max_segments_per_second as maxSegmentsPerSecond",
  "smart_encoding as smartEncoding",
];
type Row = Omit<AccountSettingsRow, "quietHours"> & { quietStart: string | null; quietEnd: string | null };

const fromRow = ({ quietStart, quietEnd, ...rest }: Row): AccountSettingsRow => ({
  ...rest,
  quietHours: quietStart !== null && quietEnd !== null ? { start: quietStart, end: quietEnd } : null,
});

/** The account's settings; the defaults when none was ever changed. */
export async function getAccountSettings(db: Knex, accountId: string): Promise<AccountSettingsRow> {
  const row: Row | undefined = await db("account_settings").where({ account_id: accountId }).first(SELECT);
  return row ? fromRow(row) : { ...DEFAULT_SETTINGS };
}

/** Sets the given settings (the others keep their value, or their default on the first change). */
export async function updateAccountSettings(
  db: Knex,
  accountId: string,
  changes: Partial<AccountSettingsRow>,
): Promise<AccountSettingsRow> {
  const patch: Record<string, string | number | boolean | null> = {};
  if (changes.optOutReply !== undefined) patch.opt_out_reply = changes.optOutReply;
  if (changes.optInReply !== undefined) patch.opt_in_reply = changes.optInReply;
  if (changes.helpReply !== undefined) patch.help_reply = changes.helpReply;
  if (changes.quietHours !== undefined) {
    patch.quiet_hours_start = changes.quietHours?.start ?? null;
    patch.quiet_hours_end = changes.quietHours?.end ?? null;
  }
  if (changes.defaultTimeZone !== undefined) patch.default_time_zone = changes.defaultTimeZone;
  if (changes.maxSegmentsPerSecond !== undefined) patch.max_segments_per_second = changes.maxSegmentsPerSecond;
  if (changes.smartEncoding !== undefined) patch.smart_encoding = changes.smartEncoding;
  const [row] = await db("account_settings")
    .insert({ account_id: accountId, ...patch })
    .onConflict("account_id")
    .merge({ ...patch, updated_at: db.fn.now() })
    .returning(SELECT);
  return fromRow(row as Row);
}

/** The account's smartEncoding setting (false when it never changed its settings). */
export async function accountSmartEncoding(db: Knex, accountId: string): Promise<boolean> {
  const row = await db("account_settings").where({ account_id: accountId }).first("smart_encoding as smartEncoding");
  return (row as { smartEncoding?: boolean } | undefined)?.smartEncoding === true;
}
