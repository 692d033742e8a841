import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export type ApiKeyKind = "account" | "operator";

export interface ApiKeyRow {
  keyId: string;
  kind: ApiKeyKind;
  /** Null for an operator key. */
  accountId: string | null;
  accountName: string | null;
  name: string | null;
  secretHash: Buffer;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const columns = {
  keyId: "k.key_id",
  kind: "k.kind",
  accountId: "k.account_id",
  accountName: "a.name",
  name: "k.name",
  secretHash: "k.secret_hash",
  createdAt: "k.created_at",
  revokedAt: "k.revoked_at",
  lastUsedAt: "k.last_used_at",
};

export async function insertApiKey(
  db: Knex,
  key: { keyId: string; secretHash: Buffer; name?: string | null } & ({ kind: "account"; accountId: string } | { kind: "operator" }),
): Promise<void> {
  await db("api_keys").insert({
    key_id: key.keyId,
    kind: key.kind,
    account_id: key.kind === "account" ? key.accountId : null,
    name: key.name ?? null,
    secret_hash: key.secretHash,
  });
}

export async function listApiKeys(db: Knex): Promise<ApiKeyRow[]> {
  return db("api_keys as k").leftJoin("accounts as a", "a.id", "k.account_id").orderBy("k.created_at").select(columns);
}

/** One active key by id (what GET /api/v1/key shows of the caller's own key). */
export async function readActiveApiKey(db: Knex, keyId: string): Promise<ApiKeyRow | undefined> {
  return db("api_keys as k")
    .leftJoin("accounts as a", "a.id", "k.account_id")
    .where("k.key_id", keyId)
    .whereNull("k.revoked_at")
    .first(columns);
}

/** Revokes a key; false when there is no such active key. */
export async function revokeApiKey(db: Knex, keyId: string): Promise<boolean> {
  const count = await db("api_keys").where({ key_id: keyId }).whereNull("revoked_at").update({ revoked_at: db.fn.now() });
  return count > 0;
}

/** Records when keys were last used, in one statement for many; a time never moves back. */
export async function recordKeyUses(db: Knex, uses: Map<string, Date>): Promise<void> {
  if (uses.size === 0) return;
  await run(
    db,
    sql`UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, u.at)
          FROM unnest(${[...uses.keys()]}::text[], ${[...uses.values()].map((d) => d.toISOString())}::timestamptz[]) AS u(key_id, at)
         WHERE k.key_id = u.key_id`,
  );
}
