// Making and revoking keys: by the CLI on the server, by an account's own key or a person's session (of its
// account only, no wider than itself, a test key only test keys) and by the operator for any account. A key made
// with a session records its maker, and a key made by such a key inherits it: the key then does at most what
// its maker's current role may (http/access.ts), and goes when its maker is removed (users.ts, removeUser).
import { ensureAccount, countAccounts, lockFirstStart } from "./accountsTable.js";
import { insertAuditEvent } from "./auditEventsTable.js";
import { insertApiKey, revokeApiKey, type ApiKeyRow, type ApiKeyScope, type KeyMaker } from "./apiKeysTable.js";
import type { Db } from "../db/knex.js";
import { generateApiKey } from "./apiKeySecrets.js";
import { inviteFirstStartOwner } from "./users.js";
import { DomainError, invalidField, notFound } from "../domain/errors.js";

/** Scopes from widest to narrowest. */
const WIDTH: Record<ApiKeyScope, number> = { full: 3, send: 2, read: 1 };

export interface KeyRequest {
  name?: string | null;
  scope?: ApiKeyScope;
  expiresAt?: string | null;
  test?: boolean;
}

/** The creating key (or session), when a key makes the key (not the CLI, not the operator). */
export interface CreatingKey {
  /** At most what its maker's role may now: the narrower of the key's scope and its maker's role's. */
  scope: ApiKeyScope;
  test: boolean;
  /** A key never outlives its maker: the child's expiry is at most this. */
  expiresAt: Date | null;
  /** The person who made it: the signed-in user, or the creating key's own maker (inherited); null for none. */
  createdBy: KeyMaker | null;
}

/** The narrower of two scopes. */
export const narrowerScope = (a: ApiKeyScope, b: ApiKeyScope): ApiKeyScope => (WIDTH[a] <= WIDTH[b] ? a : b);

/** Makes a key of an account and returns it with its secret, shown this once. */
export async function createAccountKey(
  db: Db,
  accountId: string,
  request: KeyRequest,
  opts: { by?: CreatingKey; now: Date },
): Promise<ApiKeyRow & { key: string }> {
  const scope = request.scope ?? opts.by?.scope ?? "full";
  if (opts.by && WIDTH[scope] > WIDTH[opts.by.scope]) {
    throw new DomainError(
      "insufficient_scope",
      `A \`${opts.by.scope}\` key cannot make a \`${scope}\` key: a key's scope is at most its maker's.`,
    );
  }
  const asked = request.expiresAt ? new Date(request.expiresAt) : null;
  if (asked && asked.getTime() <= opts.now.getTime()) throw invalidField("/body/expiresAt", "must be in the future");
  // A key never outlives the key that made it: an earlier expiry is kept, a later or missing one is the maker's.
  const limit = opts.by?.expiresAt ?? null;
  const expiresAt = limit && (!asked || asked.getTime() > limit.getTime()) ? limit : asked;
  // A test key makes only test keys, whatever is asked.
  const test = opts.by?.test === true ? true : (request.test ?? false);
  const { key, keyId, secretHash } = generateApiKey();
  const row = await insertApiKey(db, {
    kind: "account",
    keyId,
    accountId,
    secretHash,
    name: request.name ?? null,
    scope,
    test,
    expiresAt,
    createdBy: opts.by?.createdBy ?? null,
  });
  return { ...row, key };
}

/** Revokes a key of an account; the calling key cannot revoke itself (409 key_in_use). */
export async function revokeAccountKey(db: Db, accountId: string, keyId: string, callerKeyId?: string): Promise<void> {
  if (keyId === callerKeyId) throw new DomainError("key_in_use", "A key cannot revoke itself: revoke it with another key of the account.");
  if (!(await revokeApiKey(db, keyId, accountId))) throw notFound("Key");
}

/** The CLI: a key for the named account (creating the account if needed), returned once. Audited as `cli`. */
export async function createKeyForAccount(
  db: Db,
  accountName: string,
  opts: { firstStart?: boolean } = {},
): Promise<{ key: string; keyId: string; accountId: string }> {
  return db.transaction(async (tx) => {
    const account = await ensureAccount(tx, accountName, opts);
    const { key, keyId, secretHash } = generateApiKey();
    await insertApiKey(tx, { kind: "account", keyId, accountId: account.id, secretHash, scope: "full" });
    await insertAuditEvent(tx, cliEvent("keys.create", account.id, keyId));
    return { key, keyId, accountId: account.id };
  });
}

/** The CLI: an operator key named `name` (it calls the operator API, and no account's), returned once. */
export async function createOperatorKey(db: Db, name: string): Promise<{ key: string; keyId: string }> {
  const { key, keyId, secretHash } = generateApiKey();
  await db.transaction(async (tx) => {
    await insertApiKey(tx, { kind: "operator", keyId, name, secretHash });
    await insertAuditEvent(tx, cliEvent("keys.create", null, keyId));
  });
  return { key, keyId };
}

/** The CLI: revokes any key; false when there is no such active key. */
export async function revokeKeyByCli(db: Db, keyId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await tx("api_keys").where({ key_id: keyId }).whereNull("revoked_at").first({ accountId: "account_id" });
    if (!row || !(await revokeApiKey(tx, keyId))) return false;
    await insertAuditEvent(tx, cliEvent("keys.revoke", row.accountId as string | null, keyId));
    return true;
  });
}

const cliEvent = (action: string, accountId: string | null, keyId: string) => ({
  actorType: "cli" as const,
  keyId: null,
  accountId,
  action,
  resourceId: keyId,
  requestId: null,
  status: null,
});

/**
 * On an empty database, outside production: account `default` with one key, an operator key, and the token of
 * a one-time link that makes the account's owner (users.ts, inviteFirstStartOwner); else undefined.
 */
export async function createFirstStartKeys(
  db: Db,
  nodeEnv: string,
): Promise<{ account: string; operator: string; ownerToken: string } | undefined> {
  if (nodeEnv === "production" || (await countAccounts(db)) > 0) return undefined;
  // Several processes may start at once on the empty database: one makes the keys, the others find its account.
  return db.transaction(async (tx) => {
    await lockFirstStart(tx);
    if ((await countAccounts(tx)) > 0) return undefined;
    const made = await createKeyForAccount(tx, "default", { firstStart: true });
    const operator = (await createOperatorKey(tx, "first start")).key;
    return { account: made.key, operator, ownerToken: await inviteFirstStartOwner(tx, made.accountId) };
  });
}
