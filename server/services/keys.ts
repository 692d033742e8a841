import { ensureAccount, countAccounts } from "../db/accounts.js";
import { insertApiKey } from "../db/apiKeys.js";
import type { Db } from "../db/knex.js";
import { generateApiKey } from "../domain/apiKeys.js";

/** Creates a key for the named account (creating the account if needed) and returns the full key once. */
export async function createKeyForAccount(db: Db, accountName: string): Promise<{ key: string; keyId: string; accountId: string }> {
  return db.transaction(async (tx) => {
    const account = await ensureAccount(tx, accountName);
    const { key, keyId, secretHash } = generateApiKey();
    await insertApiKey(tx, { keyId, accountId: account.id, secretHash });
    return { key, keyId, accountId: account.id };
  });
}

/** On an empty database, outside production: account `default` and one key for it; else undefined. */
export async function createFirstStartKey(db: Db, nodeEnv: string): Promise<string | undefined> {
  if (nodeEnv === "production" || (await countAccounts(db)) > 0) return undefined;
  return (await createKeyForAccount(db, "default")).key;
}
