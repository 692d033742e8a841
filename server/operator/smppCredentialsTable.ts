// SMPP credentials (the table smpp_credentials, migration 045): the operator's API and the SMPP server's binds.
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";

export interface SmppCredentialRow {
  systemId: string;
  accountId: string;
  passwordHash: string;
  maxBinds: number;
  submitsPerSecond: number;
  window: number;
  allowedIps: string[];
  messageIdFormat: "uuid" | "hex" | "decimal";
  test: boolean;
  createdAt: Date;
  /** Locked by failed binds until then (may be past: no longer locked), or null. */
  lockedUntil: Date | null;
}

export type SmppCredentialFields = Omit<SmppCredentialRow, "systemId" | "accountId" | "createdAt" | "lockedUntil">;

/**
 * The comparison key of a system_id (unique, migration 059): NFKC, format characters removed, case-folded (upper
 * then lower folds `ß` as Unicode's case folding does), NFKC again for what the case mapping decomposed.
 */
export const systemIdKey = (systemId: string): string =>
  systemId
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .toUpperCase()
    .toLowerCase()
    .normalize("NFKC");

const COLUMNS = {
  systemId: "system_id",
  accountId: "account_id",
  passwordHash: "password_hash",
  maxBinds: "max_binds",
  submitsPerSecond: "submits_per_second",
  window: "window_size",
  allowedIps: "allowed_ips",
  messageIdFormat: "message_id_format",
  test: "test",
  createdAt: "created_at",
  lockedUntil: "locked_until",
} as const;

type Raw = Record<(typeof COLUMNS)[keyof typeof COLUMNS], unknown>;
const fromColumns = (raw: Raw | undefined): SmppCredentialRow | undefined =>
  raw && (Object.fromEntries(Object.entries(COLUMNS).map(([k, c]) => [k, raw[c]])) as unknown as SmppCredentialRow);

const toColumns = (fields: Partial<SmppCredentialFields>) =>
  Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [COLUMNS[k as keyof typeof COLUMNS], k === "allowedIps" ? (v as string[]) : v]),
  );

/** Inserts credentials; undefined when the system_id is taken (by any account), case-folded. */
export async function insertSmppCredential(
  db: Knex,
  accountId: string,
  systemId: string,
  fields: SmppCredentialFields,
): Promise<SmppCredentialRow | undefined> {
  const [row] = await db("smpp_credentials")
    .insert({ system_id: systemId, system_id_key: systemIdKey(systemId), account_id: accountId, ...toColumns(fields) })
    .onConflict()
    .ignore()
    .returning("*");
  return fromColumns(row as Raw | undefined);
}

export async function listSmppCredentials(db: Knex, accountId: string): Promise<SmppCredentialRow[]> {
  return db("smpp_credentials")
    .where({ account_id: accountId })
    .orderBy([{ column: "created_at" }, { column: "system_id" }])
    .select(COLUMNS);
}

/** Changes the account's credentials; undefined when it has none of that system_id. */
export async function updateSmppCredential(
  db: Knex,
  accountId: string,
  systemId: string,
  fields: Partial<SmppCredentialFields>,
): Promise<SmppCredentialRow | undefined> {
  const columns = toColumns(fields);
  const query = db("smpp_credentials").where({ account_id: accountId, system_id: systemId });
  const [row] = Object.keys(columns).length > 0 ? await query.update(columns).returning("*") : await query.select("*");
  return fromColumns(row as Raw | undefined);
}

export async function deleteSmppCredential(db: Knex, accountId: string, systemId: string): Promise<boolean> {
  return (await db("smpp_credentials").where({ account_id: accountId, system_id: systemId }).del()) > 0;
}

/** A bind's credentials by system_id (the account is what it finds). */
export async function findSmppCredential(db: Knex, systemId: string): Promise<SmppCredentialRow | undefined> {
  return fromColumns(await db<Raw>("smpp_credentials").where({ system_id: systemId }).first());
}

/**
 * Counts a bind attempt of `systemId` before its password is checked (so concurrent guesses are counted too):
 * the number of attempts in its window (a new window after `windowMs`), "locked" while it is locked, undefined
 * for an unknown system_id. A bind that succeeds clears the count (clearBindFailures).
 */
export async function countBindAttempt(db: Knex, systemId: string, windowMs: number): Promise<number | "locked" | undefined> {
  const { rows } = await run<{ n: number; locked: boolean }>(
    db,
    sql`WITH c AS (SELECT system_id, locked_until > now() AS locked FROM smpp_credentials WHERE system_id = ${systemId} FOR UPDATE),
         counted AS (
           UPDATE smpp_credentials s
              SET failed_binds = CASE WHEN s.failures_since IS NULL OR s.failures_since < now() - make_interval(secs => ${windowMs / 1000}::float8)
                                      THEN 1 ELSE s.failed_binds + 1 END,
                  failures_since = CASE WHEN s.failures_since IS NULL OR s.failures_since < now() - make_interval(secs => ${windowMs / 1000}::float8)
                                        THEN now() ELSE s.failures_since END
             FROM c WHERE s.system_id = c.system_id AND c.locked IS NOT TRUE
           RETURNING s.failed_binds)
        SELECT coalesce((SELECT failed_binds FROM counted), 0) AS n, coalesce(c.locked, false) AS locked FROM c`,
  );
  const row = rows[0];
  if (!row) return undefined;
  return row.locked ? "locked" : row.n;
}

/** A bind succeeded: its failures are forgotten. */
export async function clearBindFailures(db: Knex, systemId: string): Promise<void> {
  await run(db, sql`UPDATE smpp_credentials SET failed_binds = 0, failures_since = NULL WHERE system_id = ${systemId}`);
}

/** Locks `systemId` for `lockMs` (its count starts again); its account, or undefined when it is gone. */
export async function lockSmppCredential(
  db: Knex,
  systemId: string,
  lockMs: number,
): Promise<{ accountId: string; lockedUntil: Date } | undefined> {
  const { rows } = await run<{ accountId: string; lockedUntil: Date }>(
    db,
    sql`UPDATE smpp_credentials SET locked_until = now() + make_interval(secs => ${lockMs / 1000}::float8), failed_binds = 0, failures_since = NULL
         WHERE system_id = ${systemId} RETURNING account_id AS "accountId", locked_until AS "lockedUntil"`,
  );
  return rows[0];
}

/** Lifts the lock of the account's credentials (and forgets their failures); undefined when it has none of that system_id. */
export async function unlockSmppCredential(db: Knex, accountId: string, systemId: string): Promise<SmppCredentialRow | undefined> {
  const [row] = await db("smpp_credentials")
    .where({ account_id: accountId, system_id: systemId })
    .update({ locked_until: null, failed_binds: 0, failures_since: null })
    .returning("*");
  return fromColumns(row as Raw | undefined);
}

/** How long a bind's row counts without its process refreshing it (the process refreshes every second). */
export const BIND_STALE_SECONDS = 20;

export interface SmppSessionRow {
  systemId: string;
  mode: "transmitter" | "receiver" | "transceiver";
  remoteAddress: string;
  boundAt: Date;
  seenAt: Date;
}

/** The account's open binds (seen lately, on every process), oldest first. */
export async function listSmppSessions(db: Knex, accountId: string): Promise<SmppSessionRow[]> {
  return db("smpp_binds")
    .where({ account_id: accountId })
    .andWhere("seen_at", ">", db.raw(`now() - interval '${BIND_STALE_SECONDS} seconds'`))
    .orderBy([{ column: "bound_at" }, { column: "session_id" }])
    .select({ systemId: "system_id", mode: "mode", remoteAddress: "remote_address", boundAt: "bound_at", seenAt: "seen_at" });
}

/**
 * Records a bind if the credentials have a place left (binds seen lately, on every process, under maxBinds):
 * the credentials' row locked meanwhile, so two binds racing for the last place do not both get it. False when
 * none is left (or the credentials are gone).
 */
export async function recordSmppBind(
  db: Knex,
  bind: { systemId: string; serverId: string; sessionId: string; accountId: string; mode: string; remoteAddress: string },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const credential = await tx("smpp_credentials").where({ system_id: bind.systemId }).forUpdate().first("max_binds");
    if (!credential) return false;
    const open = await tx("smpp_binds")
      .where({ system_id: bind.systemId })
      .andWhere("seen_at", ">", tx.raw(`now() - interval '${BIND_STALE_SECONDS} seconds'`))
      .count({ n: "*" })
      .first();
    if (Number(open!.n) >= credential.max_binds) return false;
    await tx("smpp_binds").insert({
      system_id: bind.systemId,
      server_id: bind.serverId,
      session_id: bind.sessionId,
      account_id: bind.accountId,
      mode: bind.mode,
      remote_address: bind.remoteAddress,
    });
    return true;
  });
}

export async function deleteSmppBind(db: Knex, serverId: string, sessionId: string): Promise<void> {
  await db("smpp_binds").where({ server_id: serverId, session_id: sessionId }).del();
}

/**
 * Refreshes this process's binds (and forgets other processes' binds long dead); returns the sessions whose
 * credentials are gone (deleted: they are unbound).
 */
export async function refreshSmppBinds(db: Knex, serverId: string, sessionIds: string[]): Promise<string[]> {
  await db("smpp_binds")
    .where("seen_at", "<", db.raw(`now() - interval '${10 * BIND_STALE_SECONDS} seconds'`))
    .del();
  if (sessionIds.length === 0) return [];
  const kept: { session_id: string }[] = await db("smpp_binds")
    .where({ server_id: serverId })
    .whereIn("session_id", sessionIds)
    .update({ seen_at: db.fn.now() })
    .returning("session_id");
  const live = new Set(kept.map((r) => r.session_id));
  return sessionIds.filter((id) => !live.has(id));
}
