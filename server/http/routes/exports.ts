import { contactsExport, messagesExport, optOutsExport } from "../../reports/index.js";
import { dateParameter } from "../../domain/dateBounds.js";
import type { Handlers } from "../types.js";

export const exportHandlers: Pick<Handlers, "Exports_messages" | "Exports_contacts" | "Exports_optOuts"> = {
  // DATABASE_READ_URL's standby where it is set (db/open.ts).
  async Exports_messages({ db, readDb, account, query, now }) {
    const stream = messagesExport(
      readDb ?? db,
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
  async Exports_contacts({ db, readDb, account, query, now }) {
    return { status: 200, stream: contactsExport(readDb ?? db, account.id, query.format, now()) };
  },
  async Exports_optOuts({ db, readDb, account, query, now }) {
    return { status: 200, stream: optOutsExport(readDb ?? db, account.id, query.format, now()) };
  },
};
