// The audit log's recorder: after a successful change through the API, one event naming the operation, the
// key, the account and the resource, never the body. Single sends, previews, explains and webhook tests are
// not recorded (the message is the record of a send); refused requests are not either (/metrics counts them).
import type { Request } from "express";
import { insertAuditEvent } from "../operator/index.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";

/** Changes that are not recorded. */
const NOT_AUDITED = new Set([
  "Scheduler_schedule",
  "Messages_send",
  "Messages_sendBatch",
  "Messages_preview",
  "Routes_explain",
  "Webhooks_test",
  // Recorded by the sign-in itself, failures included (operator/users.ts).
  "Sessions_create",
  // Anyone may ask, for any address, and the answer says nothing: the link's use is recorded (confirmReset).
  "PasswordResets_requestReset",
  // A read mark changes what one person has seen, not the account's data.
  "Conversations_markRead",
]);

/** True when a successful answer of this operation is recorded. */
export const isAudited = (method: string, operationId: string): boolean => method !== "GET" && !NOT_AUDITED.has(operationId);

/**
 * The id a created resource's answer carries, by the names the API gives ids: the made resource's own id
 * before the ids it refers to (a campaign's answer names its group, a key's its account).
 */
const CREATED_ID = [
  "keyId",
  "userId",
  "entryId",
  "numberId",
  "contactId",
  "campaignId",
  "webhookId",
  "connectorId",
  "senderPoolId",
  "systemId",
  "deliveryId",
  "messageId",
  "groupId",
  "accountId",
];

/** The resource made or changed: a created one's id (201), else the last identifier of the path. */
function resourceOf(req: Request, status: number, body: unknown): string | null {
  if (status === 201 && body && typeof body === "object") {
    for (const name of CREATED_ID) {
      const value = (body as Record<string, unknown>)[name];
      if (typeof value === "string") return value;
    }
  }
  return Object.values(req.operation?.params ?? {}).at(-1) ?? null;
}

/**
 * Records one event; a failure to record is logged, not answered: the change is made and its answer stands.
 * `accountId`: the account changed (the path's for the operator's account operations).
 */
export async function recordAudit(
  db: Db,
  log: Logger,
  req: Request,
  change: { operationId: string; status: number; body: unknown; accountId: string | null },
): Promise<void> {
  // Without a key: an invitation accepted, made by the person it names (its answer is the user).
  const user = req.apiKey ? undefined : (change.body as { userId?: string; accountId?: string | null } | undefined);
  const key = req.apiKey ?? {
    kind: user?.accountId === null ? ("operator" as const) : ("account" as const),
    id: user?.userId ? `user:${user.userId}` : null,
  };
  try {
    await insertAuditEvent(db, {
      actorType: key.kind,
      keyId: key.id,
      accountId: change.accountId,
      action: change.operationId,
      resourceId: resourceOf(req, change.status, change.body),
      requestId: typeof req.id === "string" ? req.id : String(req.id ?? ""),
      status: change.status,
    });
  } catch (error) {
    log.error({ err: error, action: change.operationId }, "audit event not recorded");
  }
}
