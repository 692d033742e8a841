import type { Knex } from "knex";

export interface AccountSettingsRow {
  optOutReply: string | null;
  optInReply: string | null;
  helpReply: string | null;
}

/** The contract's defaults, also the column defaults of account_settings (migration 010). */
export const DEFAULT_SETTINGS: AccountSettingsRow = {
  optOutReply: "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
  optInReply: "You have been resubscribed. Reply STOP to unsubscribe.",
  helpReply: "Reply STOP to unsubscribe. Msg & data rates may apply.",
};

const columns = { optOutReply: "opt_out_reply", optInReply: "opt_in_reply", helpReply: "help_reply" };

/** The account's settings; the defaults when none was ever changed. */
export async function getAccountSettings(db: Knex, accountId: string): Promise<AccountSettingsRow> {
  return (await db("account_settings").where({ account_id: accountId }).first(columns)) ?? { ...DEFAULT_SETTINGS };
}

/** Sets the given settings (the others keep their value, or their default on the first change). */
export async function updateAccountSettings(
  db: Knex,
  accountId: string,
  changes: Partial<AccountSettingsRow>,
): Promise<AccountSettingsRow> {
  const patch: Record<string, string | null> = {};
  for (const [key, column] of Object.entries(columns)) {
    const value = changes[key as keyof AccountSettingsRow];
    if (value !== undefined) patch[column] = value;
  }
  const [row] = await db("account_settings")
    .insert({ account_id: accountId, ...patch })
    .onConflict("account_id")
    .merge({ ...patch, updated_at: db.fn.now() })
    .returning(Object.entries(columns).map(([alias, column]) => `${column} as ${alias}`));
  return row as AccountSettingsRow;
}
