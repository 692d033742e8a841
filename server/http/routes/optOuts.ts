import { getOptOut, listOptOuts } from "../../db/optOuts.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { addOptOut, importOptOuts, phoneFromPath, removeOptOut } from "../../services/optOuts.js";
import { withIdempotency } from "../idempotency.js";
import { toOptOut } from "../serialize.js";
import type { Handlers } from "../types.js";

export const optOutHandlers: Pick<Handlers, "OptOuts_list" | "OptOuts_get" | "OptOuts_add" | "OptOuts_remove" | "OptOuts_import"> = {
  async OptOuts_import({ db, account, body, headers }) {
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => ({
      status: 200 as const,
      body: await importOptOuts(tx, account.id, body.optOuts),
    }));
  },

  async OptOuts_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listOptOuts(db, account.id, w));
    return { status: 200, body: { data: items.map(toOptOut), nextCursor } };
  },

  async OptOuts_get({ db, account, path }) {
    const optOut = await getOptOut(db, account.id, phoneFromPath(path.phone));
    if (!optOut) throw notFound("Opt-out");
    return { status: 200, body: toOptOut(optOut) };
  },

  async OptOuts_add({ db, account, path }) {
    const { optOut, created } = await addOptOut(db, account.id, phoneFromPath(path.phone));
    return { status: created ? 201 : 200, body: toOptOut(optOut) };
  },

  async OptOuts_remove({ db, account, path }) {
    await removeOptOut(db, account.id, phoneFromPath(path.phone));
    return { status: 204 };
  },
};
