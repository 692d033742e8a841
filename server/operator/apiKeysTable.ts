import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import type { AccountLimits } from "./accountsTable.js";
import { cursorAtColumn } from "../db/newestFirstPage.js";
import { run, sql } from "../db/sql.js";

export type ApiKeyKind = "account" | "operator";
/** What an account key may do: `full` covers `send`, which covers `read`. */
export type ApiKeyScope = "full" | "send" | "read";

export interface ApiKeyRow {
  keyId: string;
  kind: ApiKeyKind;
  /** Null for an operator key. */
  accountId: string | null;
  accountName: string | null;
  name: string | null;
  /** Null for an operator key. */
  scope: ApiKeyScope | null;
  test: boolean;
  expiresAt: Date | null;
  secretHash: Buffer;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** A key as authentication reads it: with its account's state and limits (accounts.ts). */
export interface AdmittedKeyRow extends ApiKeyRow {
  accountSuspended: boolean | null;
  accountFirstStart: boolean | null;
  accountLimits: AccountLimits | null;
}

const columns = {
  keyId: "k.key_id",
  kind: "k.kind",
  accountId: "k.account_id",
  accountName: "a.name",
  name: "k.name",
  scope: "k.scope",
  test: "k.test",
  expiresAt: "k.expires_at",
  secretHash: "k.secret_hash",
  createdAt: "k.created_at",
  revokedAt: "k.revoked_at",
  lastUsedAt: "k.last_used_at",
};

export type NewApiKeyRow = { keyId: string; secretHash: Buffer; name?: string | null } & (
  { kind: "account"; accountId: string; scope: ApiKeyScope; test?: boolean; expiresAt?: Date | null } | { kind: "operator" }
);

export async function insertApiKey(db: Knex, key: NewApiKeyRow): Promise<ApiKeyRow> {
  await db("api_keys").insert({
    key_id: key.keyId,
    kind: key.kind,
    account_id: key.kind === "account" ? key.accountId : null,
    name: key.name ?? null,
    scope: key.kind === "account" ? key.scope : null,
    test: key.kind === "account" ? (key.test ?? false) : false,
    expires_at: key.kind === "account" ? (key.expiresAt ?? null) : null,
    secret_hash: key.secretHash,
  });
  return (await readActiveApiKey(db, key.keyId))!;
}

export async function listApiKeys(db: Knex): Promise<ApiKeyRow[]> {
  return db("api_keys as k").leftJoin("accounts as a", "a.id", "k.account_id").orderBy("k.created_at").select(columns);
}

/** An account's active keys (expired ones included: they are still to be revoked), newest first. */
export async function listAccountKeys(
  db: Knex,
  accountId: string,
  opts: { after?: CursorKey; limit: number },
): Promise<(ApiKeyRow & CursorKey & { id: string })[]> {
  const query = db("api_keys as k")
    .leftJoin("accounts as a", "a.id", "k.account_id")
    .where("k.account_id", accountId)
    .whereNull("k.revoked_at")
    .select({ ...columns, id: "k.key_id" }, cursorAtColumn(db, "k.created_at"));
  // Keyset on (created_at, key_id): key ids are text, not uuids.
  if (opts.after) query.where(sql`(k.created_at, k.key_id) < (${opts.after.cursorAt}::timestamptz, ${opts.after.id})`.forBuilder(db));
  return query
    .orderBy([
      { column: "k.created_at", order: "desc" },
      { column: "k.key_id", order: "desc" },
    ])
    .limit(opts.limit);
}

/** One active key by id (what GET /api/v1/key shows of the caller's own key). */
export async function readActiveApiKey(db: Knex, keyId: string): Promise<ApiKeyRow | undefined> {
  return db("api_keys as k")
    .leftJoin("accounts as a", "a.id", "k.account_id")
    .where("k.key_id", keyId)
    .whereNull("k.revoked_at")
    .first(columns);
}

/** Revokes a key (of `accountId` when given); false when there is no such active key. */
export async function revokeApiKey(db: Knex, keyId: string, accountId?: string): Promise<boolean> {
  const query = db("api_keys").where({ key_id: keyId }).whereNull("revoked_at");
  if (accountId !== undefined) query.where({ account_id: accountId });
  return (await query.update({ revoked_at: db.fn.now() })) > 0;
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
