// SMPP credentials (the table smpp_credentials, migration 045): the operator's API and the SMPP server's binds.
import type { Knex } from "knex";

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
}

export type SmppCredentialFields = Omit<SmppCredentialRow, "systemId" | "accountId" | "createdAt">;

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

/** Inserts credentials; undefined when the system_id is taken (by any account). */
export async function insertSmppCredential(
  db: Knex,
  accountId: string,
  systemId: string,
  fields: SmppCredentialFields,
): Promise<SmppCredentialRow | undefined> {
  const [row] = await db("smpp_credentials")
    .insert({ system_id: systemId, account_id: accountId, ...toColumns(fields) })
    .onConflict("system_id")
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
