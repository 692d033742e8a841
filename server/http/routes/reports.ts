import { messageReport } from "../../reports/index.js";
import { dateParameter } from "../../domain/dateBounds.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

export const reportHandlers: Pick<Handlers, "Reports_messages"> = {
  // An account key reports on its own account (its accountId filter is itself); the operator on any or all.
  // DATABASE_READ_URL's standby where it is set (db/open.ts).
  async Reports_messages({ db, readDb, key, account, query }) {
    const report = await messageReport(readDb ?? db, {
      accountId: key.kind === "account" ? account.id : (query.accountId ?? null),
      since: dateParameter(query.since, "/query/since"),
      until: dateParameter(query.until, "/query/until"),
      groupBy: query.groupBy,
      tz: query.tz,
      byOperator: key.kind === "operator",
      campaignId: query.campaignId,
    });
    return {
      status: 200,
      body: { since: iso(report.since), until: iso(report.until), tz: report.tz, groupBy: [...report.groupBy], rows: report.rows },
    };
  },
};
