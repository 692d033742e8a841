import { getMessage, getStatusHistories, listMessages } from "../../db/messages/index.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { requirePhone } from "../../domain/phone.js";
import { storedStatuses } from "../../domain/messageStatus.js";
import { toMessage } from "../serialize.js";
import type { Handlers } from "../types.js";

export const messageHandlers: Pick<Handlers, "Messages_list" | "Messages_get"> = {
  async Messages_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) =>
      listMessages(db, account.id, {
        statuses: query.status ? storedStatuses(query.status) : undefined,
        campaignId: query.campaignId,
        test: query.test,
        direction: query.direction,
        phone: query.phone === undefined ? undefined : requirePhone(query.phone, "/query/phone"),
        ...w,
      }),
    );
    const histories = await getStatusHistories(db, account.id, items);
    return { status: 200, body: { data: items.map((m) => toMessage(m, histories.get(m.id)!)), nextCursor } };
  },

  async Messages_get({ db, account, path }) {
    const message = await getMessage(db, account.id, path.messageId);
    if (!message) throw notFound("Message");
    const histories = await getStatusHistories(db, account.id, [message]);
    return { status: 200, body: toMessage(message, histories.get(message.id)!) };
  },
};
