import { listUnroutedMessages } from "../../operator/index.js";
import { fetchPage } from "../../domain/cursor.js";
import type { Handlers } from "../types.js";

export const unroutedMessageHandlers: Pick<Handlers, "UnroutedMessages_list"> = {
  async UnroutedMessages_list({ db, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listUnroutedMessages(db, w));
    return {
      status: 200,
      body: {
        data: items.map((m) => ({
          unroutedMessageId: m.id,
          from: m.from,
          to: m.to,
          body: m.body,
          segments: m.segments,
          encoding: m.encoding,
          incomplete: m.incomplete,
          receivedAt: m.receivedAt.toISOString(),
        })),
        nextCursor,
      },
    };
  },
};
