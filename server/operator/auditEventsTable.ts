// The audit_events table (migration 026): one row per successful change, never a body or a secret.
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "../db/newestFirstPage.js";
import { run, sql } from "../db/sql.js";

export type AuditActorType = "account" | "operator" | "cli";

export interface NewAuditEvent {
  actorType: AuditActorType;
  keyId: string | null;
  accountId: string | null;
  action: string;
  resourceId: string | null;
  requestId: string | null;
  status: number | null;
}

export interface AuditEventRow extends NewAuditEvent {
  id: string;
  createdAt: Date;
  /** The person's email as it was when they made the change signed in (`keyId` `user:<userId>`), else null. */
  actorEmail: string | null;
}

/** Records an event; a person's (`keyId` `user:<userId>`) email is kept with it, read in the same statement. */
export async function insertAuditEvent(db: Knex, e: NewAuditEvent): Promise<void> {
  await run(
    db,
    sql`INSERT INTO audit_events (actor_type, key_id, actor_email, account_id, action, resource_id, request_id, status)
        VALUES (${e.actorType}, ${e.keyId},
                (SELECT email FROM users
                  WHERE id = CASE WHEN ${e.keyId}::text LIKE 'user:%' THEN substr(${e.keyId}::text, 6)::uuid END),
                ${e.accountId}, ${e.action}, ${e.resourceId}, ${e.requestId}, ${e.status})`,
  );
}

const columns = [
  "id",
  "created_at as createdAt",
  "actor_type as actorType",
  "key_id as keyId",
  "actor_email as actorEmail",
  "account_id as accountId",
  "action",
  "resource_id as resourceId",
  "request_id as requestId",
  "status",
];

/** Newest first; `accountId` undefined: every account's and the service's (the operator's view). */
export async function listAuditEvents(
  db: Knex,
  filter: { accountId?: string; action?: string },
  opts: { after?: CursorKey; limit: number },
): Promise<(AuditEventRow & CursorKey)[]> {
  const query = db("audit_events").select([...columns, cursorAtColumn(db, "created_at")]);
  if (filter.accountId !== undefined) query.where({ account_id: filter.accountId });
  if (filter.action !== undefined) query.where({ action: filter.action });
  return newestFirstPage(query, opts.after, opts.limit);
}

/** Deletes up to `limit` audit events created before `before`, oldest first; returns how many (retention). */
export async function deleteOldAuditEvents(db: Knex, before: Date, limit: number): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`DELETE FROM audit_events WHERE id = ANY(ARRAY(
          SELECT id FROM audit_events WHERE created_at < ${before} ORDER BY created_at, id LIMIT ${limit}))`,
  );
  return rowCount;
}
