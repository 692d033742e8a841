import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import type { AccountLimits } from "./accountsTable.js";
import { cursorAtColumn } from "../db/newestFirstPage.js";
import { run, sql } from "../db/sql.js";
import type { AccountRole } from "./userRoles.js";

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
  /** The user whose session made the key (or made the key that made it); null for the operator's, the CLI's, the first start's. */
  createdByUserId: string | null;
  /** That user's address when the key was made; null with createdByUserId. */
  createdByEmail: string | null;
}

/** Who made a key with a session: a key made by a key inherits its maker's. */
export interface KeyMaker {
  userId: string;
  email: string;
}

/** A key as authentication reads it: with its account's state and limits (accounts.ts). */
export interface AdmittedKeyRow extends ApiKeyRow {
  accountSuspended: boolean | null;
  accountFirstStart: boolean | null;
  accountLimits: AccountLimits | null;
  /**
   * The current role of the user who made the key, read with the key on every request; null for a key without
   * a maker. A key whose maker is gone (or of another account) is not found at all.
   */
  makerRole: AccountRole | null;
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
  createdByUserId: "k.created_by_user_id",
  createdByEmail: "k.created_by_email",
};

export type NewApiKeyRow = { keyId: string; secretHash: Buffer; name?: string | null } & (
  | { kind: "account"; accountId: string; scope: ApiKeyScope; test?: boolean; expiresAt?: Date | null; createdBy?: KeyMaker | null }
  | { kind: "operator" }
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
    created_by_user_id: key.kind === "account" ? (key.createdBy?.userId ?? null) : null,
    created_by_email: key.kind === "account" ? (key.createdBy?.email ?? null) : null,
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

/**
 * Revokes every active key a user made (with a session, or by a key it made): when the user is removed. The
 * revoked keys' ids, for the audit log.
 */
export async function revokeKeysMadeBy(db: Knex, userId: string): Promise<{ keyId: string; accountId: string }[]> {
  const { rows } = await run<{ keyId: string; accountId: string }>(
    db,
    sql`UPDATE api_keys SET revoked_at = now() WHERE created_by_user_id = ${userId}::uuid AND revoked_at IS NULL
        RETURNING key_id AS "keyId", account_id AS "accountId"`,
  );
  return rows;
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
