import type { Knex } from "knex";
import { queryPrepared } from "./prepared.js";

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

const findActive = {
  name: "find_active_api_key",
  text: `SELECT k.key_id AS "keyId", k.account_id AS "accountId", a.name AS "accountName", k.secret_hash AS "secretHash",
                k.created_at AS "createdAt", k.revoked_at AS "revokedAt"
           FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.key_id = $1 AND k.revoked_at IS NULL`,
};

/** The key with this id if it exists and is not revoked (every API request asks: a prepared statement). */
export async function findActiveApiKey(db: Knex, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await queryPrepared<ApiKeyRow>(db, findActive, [keyId]);
  return row;
}

export async function listApiKeys(db: Knex): Promise<ApiKeyRow[]> {
  return db("api_keys as k").join("accounts as a", "a.id", "k.account_id").orderBy("k.created_at").select(columns);
}

/** Revokes a key; false when there is no such active key. */
export async function revokeApiKey(db: Knex, keyId: string): Promise<boolean> {
  const count = await db("api_keys").where({ key_id: keyId }).whereNull("revoked_at").update({ revoked_at: db.fn.now() });
  return count > 0;
}
