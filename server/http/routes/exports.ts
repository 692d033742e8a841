import { contactsExport, messagesExport, optOutsExport } from "../../reports/index.js";
import { dateParameter } from "../../domain/dateBounds.js";
import type { Handlers } from "../types.js";

export const exportHandlers: Pick<Handlers, "Exports_messages" | "Exports_contacts" | "Exports_optOuts"> = {
  async Exports_messages({ db, account, query, now }) {
    const stream = messagesExport(
      db,
      account.id,
      {
        format: query.format,
        since: dateParameter(query.since, "/query/since"),
        until: dateParameter(query.until, "/query/until"),
        statuses: query.status,
        direction: query.direction,
        campaignId: query.campaignId,
      },
      now(),
    );
    return { status: 200, stream };
  },
  async Exports_contacts({ db, account, query, now }) {
    return { status: 200, stream: contactsExport(db, account.id, query.format, now()) };
  },
  async Exports_optOuts({ db, account, query, now }) {
    return { status: 200, stream: optOutsExport(db, account.id, query.format, now()) };
  },
};
