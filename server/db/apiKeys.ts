import type { Knex } from "knex";

export interface ApiKeyRow {
  keyId: string;
  accountId: string;
  accountName: string;
  secretHash: Buffer;
  createdAt: Date;
  revokedAt: Date | null;
}

const columns = {
  keyId: "k.key_id",
  accountId: "k.account_id",
  accountName: "a.name",
  secretHash: "k.secret_hash",
  createdAt: "k.created_at",
  revokedAt: "k.revoked_at",
};

export async function insertApiKey(db: Knex, key: { keyId: string; accountId: string; secretHash: Buffer }): Promise<void> {
  await db("api_keys").insert({ key_id: key.keyId, account_id: key.accountId, secret_hash: key.secretHash });
}

export async function listApiKeys(db: Knex): Promise<ApiKeyRow[]> {
  return db("api_keys as k").join("accounts as a", "a.id", "k.account_id").orderBy("k.created_at").select(columns);
}

/** Revokes a key; false when there is no such active key. */
export async function revokeApiKey(db: Knex, keyId: string): Promise<boolean> {
  const count = await db("api_keys").where({ key_id: keyId }).whereNull("revoked_at").update({ revoked_at: db.fn.now() });
  return count > 0;
}
