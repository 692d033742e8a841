import { listAuditEvents } from "../../operator/index.js";
import { fetchPage } from "../../domain/cursor.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

export const auditEventHandlers: Pick<Handlers, "AuditEvents_list"> = {
  // An account key sees its account's events alone (its accountId filter is its own); the operator any.
  async AuditEvents_list({ db, key, account, query }) {
    const accountId = key.kind === "account" ? account.id : query.accountId;
    const { items, nextCursor } = await fetchPage(query, (w) => listAuditEvents(db, { accountId, action: query.action }, w));
    return {
      status: 200,
      body: {
        data: items.map((e) => ({
          auditEventId: e.id,
          at: iso(e.createdAt),
          actor: { type: e.actorType, keyId: e.keyId, email: e.actorEmail },
          accountId: e.accountId,
          action: e.action,
          resourceId: e.resourceId,
          requestId: e.requestId,
          status: e.status,
        })),
        nextCursor,
      },
    };
  },
};
