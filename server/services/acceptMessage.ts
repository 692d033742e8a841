// One message as a sending path accepts it (schedule, send now, a batch item): every rule checked that needs no
// database — the destination and sender guards, the time, validity, metadata — and the text as it will be
// sent (smart encoding), counted. What needs the database (the sender held, the opt-out list, the quota) is
// checked where it is stored.
import { segmentInfo, isGsm7 } from "../../common/segments.js";
import { textToSend } from "../../common/smartEncoding.js";
import type { Account } from "../operator/index.js";
import type { NewMessage } from "../db/messages/index.js";
import { DomainError, invalidField } from "../domain/errors.js";
import { requireMetadata } from "../domain/metadata.js";
import { requireSender } from "../domain/phone.js";
import { checkScheduledAt } from "../domain/schedule.js";
import { destinationsOf, requireAllowedDestination, requireAllowedSenderId } from "../domain/sendingGuards.js";
import type { Category, Priority } from "../domain/sendingPolicy.js";
import { uuidv7 } from "../domain/uuidv7.js";
import { validUntil } from "../domain/validity.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

export interface SendRequest {
  to: string;
  /** Exactly one of `from` and `senderPoolId`. */
  from?: string;
  senderPoolId?: string;
  body: string;
  /** Absent: now. */
  scheduledAt?: string;
  /** Seconds after scheduledAt (or now) by which it must be handed to the provider. */
  validityPeriod?: number;
  category?: Category;
  priority?: Priority;
  reference?: string;
  metadata?: Record<string, string>;
  smartEncoding?: boolean;
  /** The template the text was made from (services/templates.ts). */
  templateId?: string | null;
}

/** Whether this request's text needs the account's smartEncoding setting to be decided. */
export const needsSmartEncodingDefault = (r: { body: string; smartEncoding?: boolean }): boolean =>
  r.smartEncoding === undefined && !isGsm7(r.body);

/**
 * The message a request makes, checked; throws the first rule it breaks. `path` is where the request is in the
 * body (`/body`, `/body/messages/3`).
 */
export function acceptMessage(
  account: Account,
  request: SendRequest,
  ctx: {
    now: Date;
    test: boolean;
    /** ALLOW_INTERNATIONAL_NETWORKS. */
    destinations: DeploymentDestinations;
    smartEncodingDefault: boolean;
    path: string;
    batchId?: string;
    /** The account's sender pools' ids (read only when a request names one). */
    senderPools?: ReadonlySet<string>;
  },
): NewMessage {
  const to = requireAllowedDestination(request.to, destinationsOf(account.limits, ctx.destinations), `${ctx.path}/to`);
  const { from, senderPoolId } = senderOf(account, request, ctx);
  let scheduledAt = ctx.now;
  if (request.scheduledAt !== undefined) {
    scheduledAt = new Date(request.scheduledAt);
    checkScheduledAt(scheduledAt, ctx.now, `${ctx.path}/scheduledAt`);
  }
  const metadata = requireMetadata(request.metadata, `${ctx.path}/metadata`);
  const sent = textToSend(request.body, request.smartEncoding ?? ctx.smartEncodingDefault);
  return {
    id: uuidv7(),
    jobId: uuidv7(),
    to,
    from,
    body: request.body,
    sentBody: sent === request.body ? null : sent,
    senderPoolId,
    scheduledAt,
    validUntil: validUntil(scheduledAt, request.validityPeriod),
    category: request.category,
    priority: request.priority,
    test: ctx.test,
    batchId: ctx.batchId ?? null,
    reference: request.reference ?? null,
    metadata,
    templateId: request.templateId ?? null,
    ...segmentInfo(sent),
  };
}

/** Exactly one of `from` (checked) and `senderPoolId` (one of the account's pools; its sender chosen at send time). */
function senderOf(
  account: Account,
  request: { from?: string; senderPoolId?: string },
  ctx: { path: string; senderPools?: ReadonlySet<string> },
): { from: string; senderPoolId: string | null } {
  if ((request.from === undefined) === (request.senderPoolId === undefined))
    throw invalidField(`${ctx.path}/from`, "or senderPoolId: exactly one of the two is required");
  if (request.senderPoolId !== undefined) {
    if (!ctx.senderPools?.has(request.senderPoolId))
      throw new DomainError("sender_pool_not_found", "senderPoolId does not name a sender pool of this account.", {
        errors: [{ path: `${ctx.path}/senderPoolId`, message: "no such sender pool" }],
      });
    return { from: "", senderPoolId: request.senderPoolId };
  }
  const from = requireSender(request.from!, `${ctx.path}/from`);
  requireAllowedSenderId(from, account.limits, `${ctx.path}/from`);
  return { from, senderPoolId: null };
}
