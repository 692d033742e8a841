import { ensureAccount, countAccounts } from "../db/accounts.js";
import { insertApiKey } from "../db/apiKeys.js";
import type { Db } from "../db/knex.js";
import { generateApiKey } from "../domain/apiKeys.js";

/** Creates a key for the named account (creating the account if needed) and returns the full key once. */
export async function createKeyForAccount(db: Db, accountName: string): Promise<{ key: string; keyId: string; accountId: string }> {
  return db.transaction(async (tx) => {
    const account = await ensureAccount(tx, accountName);
    const { key, keyId, secretHash } = generateApiKey();
    await insertApiKey(tx, { kind: "account", keyId, accountId: account.id, secretHash });
    return { key, keyId, accountId: account.id };
  });
}

/** Creates an operator key named `name` (it calls the operator API, and no account's) and returns it once. */
export async function createOperatorKey(db: Db, name: string): Promise<{ key: string; keyId: string }> {
  const { key, keyId, secretHash } = generateApiKey();
  await insertApiKey(db, { kind: "operator", keyId, name, secretHash });
  return { key, keyId };
}

/**
 * On an empty database, outside production: account `default` with one key, and an operator key; else
 * undefined.
 */
export async function createFirstStartKeys(db: Db, nodeEnv: string): Promise<{ account: string; operator: string } | undefined> {
  if (nodeEnv === "production" || (await countAccounts(db)) > 0) return undefined;
  const account = (await createKeyForAccount(db, "default")).key;
  return { account, operator: (await createOperatorKey(db, "first start")).key };
}
