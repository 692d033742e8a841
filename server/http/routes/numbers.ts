import { deleteNumber, getNumber, listNumbers } from "../../db/numbers.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { registerOwnNumber } from "../../services/numbers.js";
import { toNumber } from "../serialize.js";
import type { Handlers } from "../types.js";

export const numberHandlers: Pick<Handlers, "Numbers_create" | "Numbers_list" | "Numbers_get" | "Numbers_delete"> = {
  async Numbers_create({ db, account, body }) {
    return { status: 201, body: toNumber(await registerOwnNumber(db, account, body)) };
  },

  async Numbers_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listNumbers(db, account.id, w));
    return { status: 200, body: { data: items.map(toNumber), nextCursor } };
  },

  async Numbers_get({ db, account, path }) {
    const number = await getNumber(db, account.id, path.numberId);
    if (!number) throw notFound("Number");
    return { status: 200, body: toNumber(number) };
  },

  async Numbers_delete({ db, account, path }) {
    if (!(await deleteNumber(db, account.id, path.numberId))) throw notFound("Number");
    return { status: 204 };
  },
};
