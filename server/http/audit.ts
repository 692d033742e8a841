// The audit log's recorder: after a successful change through the API, one event naming the operation, the
// key, the account and the resource, never the body. Single sends, previews, explains and webhook tests are
// not recorded (the message is the record of a send); refused requests are not either (/metrics counts them).
import type { Request } from "express";
import { insertAuditEvent } from "../db/auditEvents.js";
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
]);

/** True when a successful answer of this operation is recorded. */
export const isAudited = (method: string, operationId: string): boolean => method !== "GET" && !NOT_AUDITED.has(operationId);

/** The id a created resource's answer carries, by the names the API gives ids. */
const CREATED_ID = ["accountId", "keyId", "numberId", "contactId", "groupId", "campaignId", "webhookId", "messageId", "deliveryId"];

/** The resource changed: the last identifier of the path, else the created one's id in the answer. */
function resourceOf(req: Request, body: unknown): string | null {
  const params = Object.values(req.params ?? {}).filter((v): v is string => typeof v === "string");
  if (params.length > 0) return params.at(-1)!;
  if (body && typeof body === "object") {
    for (const name of CREATED_ID) {
      const value = (body as Record<string, unknown>)[name];
      if (typeof value === "string") return value;
    }
  }
  return null;
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
  const key = req.apiKey!;
  try {
    await insertAuditEvent(db, {
      actorType: key.kind,
      keyId: key.id,
      accountId: change.accountId,
      action: change.operationId,
      resourceId: resourceOf(req, change.body),
      requestId: typeof req.id === "string" ? req.id : String(req.id ?? ""),
      status: change.status,
    });
  } catch (error) {
    log.error({ err: error, action: change.operationId }, "audit event not recorded");
  }
}
