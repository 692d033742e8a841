import { listConversations, markConversationRead } from "../../db/conversations.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { toE164 } from "../../domain/phone.js";
import { toConversation } from "../serialize.js";
import type { Handlers } from "../types.js";

export const conversationHandlers: Pick<Handlers, "Conversations_list" | "Conversations_markRead"> = {
  async Conversations_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listConversations(db, account.id, { unread: query.unread, ...w }));
    return { status: 200, body: { data: items.map(toConversation), nextCursor } };
  },

  async Conversations_markRead({ db, account, path }) {
    // A number as the carrier gave it when it is not one E.164 names (a short code, a national number).
    const raw = path.phone;
    const phone = toE164(raw.startsWith("+") ? raw : `+${raw}`) ?? raw;
    const row = await markConversationRead(db, account.id, phone);
    if (!row) throw notFound("Conversation");
    return { status: 200, body: toConversation(row) };
  },
};
