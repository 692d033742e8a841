import {
  getMessage,
  isSearch,
  listMessages,
  searchMessages,
  type MessageListFilters,
  type MessageSearch,
} from "../../db/messages/index.js";
import { decodeCursor, fetchPage, searchPageOf } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { dateParameter } from "../../domain/dateBounds.js";
import { requirePhone } from "../../domain/phone.js";
import { storedStatuses } from "../../domain/messageStatus.js";
import { toMessage } from "../serialize.js";
import type { ApiServices, Handlers } from "../types.js";
import type { Knex } from "knex";
import { preview } from "../../../common/smartEncoding.js";
import { accountSmartEncoding } from "../../db/accountSettings.js";
import { cancelBatch, sendBatch } from "../../services/batches.js";
import { scheduleMessage } from "../../services/messages.js";
import { withIdempotency } from "../idempotency.js";
import { sendWithText, templatesOf, type TextOrTemplate } from "../../services/templates.js";
import type { SendRequest } from "../../services/acceptMessage.js";
import { DomainError } from "../../domain/errors.js";
import { iso } from "../serialize.js";
import { deploymentDestinations } from "../../config.js";

export const messageHandlers: Pick<
  Handlers,
  "Messages_list" | "Messages_get" | "Messages_send" | "Messages_sendBatch" | "Messages_preview" | "Batches_cancel"
> = {
  async Messages_send({ db, config, account, key: apiKey, body, headers, now }) {
    const request = sendWithText(body, await templatesOf(db, account.id, [body]), "/body");
    const send = async (conn: Knex) => {
      const { messageId, jobId, scheduledAt } = await scheduleMessage(conn, account, request, now(), {
        test: apiKey.test,
        destinations: deploymentDestinations(config),
      });
      return { status: 201 as const, body: { messageId, jobId, scheduledAt: iso(scheduledAt), status: "scheduled" as const } };
    };
    const key = headers["Idempotency-Key"];
    return key === undefined ? send(db) : withIdempotency(db, account.id, key, body, send);
  },

  async Messages_sendBatch({ db, config, account, key: apiKey, body, headers, now, batchItems }) {
    const items = await withTemplateTexts(db, account.id, batchItems(body));
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => ({
      status: 200 as const,
      body: await sendBatch(tx, account, items, {
        now: now(),
        test: apiKey.test,
        destinations: deploymentDestinations(config),
      }),
    }));
  },

  async Messages_preview({ db, account, body }) {
    const smart = body.smartEncoding ?? (await accountSmartEncoding(db, account.id));
    return { status: 200, body: preview(body.body, smart) };
  },

  async Batches_cancel({ db, account, key, path }) {
    const cancelled = await cancelBatch(db, account.id, path.batchId, { testKey: key.test });
    return { status: 200, body: { batchId: path.batchId, cancelled } };
  },

  async Messages_list({ db, account, query, config }) {
    const filters = {
      statuses: query.status ? storedStatuses(query.status) : undefined,
      campaignId: query.campaignId,
      test: query.test,
      batchId: query.batchId,
      reference: query.reference,
      direction: query.direction,
      phone: query.phone === undefined ? undefined : requirePhone(query.phone, "/query/phone"),
      since: dateParameter(query.since, "/query/since")?.toISOString(),
      until: dateParameter(query.until, "/query/until")?.toISOString(),
    };
    const search = { q: query.q, to: query.to, from: query.from };
    const { items, nextCursor } = isSearch(search)
      ? await searchMessagesPage(db, account.id, filters, search, query, config.searchScanRows)
      : await fetchPage(query, (w) => listMessages(db, account.id, { ...filters, ...w }));
    return { status: 200, body: { data: items.map((m) => toMessage(m)), nextCursor } };
  },

  async Messages_get({ db, account, path }) {
    const message = await getMessage(db, account.id, path.messageId);
    if (!message) throw notFound("Message");
    return { status: 200, body: toMessage(message) };
  },
};

/** A page of a message search: at most `scanRows` messages looked at (db/messages/search.ts). */
async function searchMessagesPage(
  db: Knex,
  accountId: string,
  filters: MessageListFilters,
  search: MessageSearch,
  query: { limit?: number; cursor?: string },
  scanRows: number,
) {
  const limit = query.limit ?? 50;
  const after = decodeCursor(query.cursor);
  const { rows, scannedTo } = await searchMessages(db, accountId, { ...filters, search, after, limit: limit + 1, scanRows });
  return searchPageOf(rows, limit, scannedTo);
}

type BatchItem = ReturnType<ApiServices["batchItems"]>[number];

/**
 * A batch's items with their texts made: the templates they name read in one query, an item whose template or
 * variables fail reported as its own error (as any item's), the others kept.
 */
async function withTemplateTexts(db: Knex, accountId: string, items: BatchItem[]): Promise<BatchItem[]> {
  const requests = items.filter((i): i is SendRequest => !("code" in i)) as (SendRequest & TextOrTemplate)[];
  if (!requests.some((r) => r.templateId !== undefined)) return items;
  const templates = await templatesOf(db, accountId, requests);
  return items.map((item, index) => {
    if ("code" in item) return item;
    try {
      return sendWithText(item as SendRequest & TextOrTemplate, templates, `/body/messages/${index}`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { code: error.code, detail: error.detail, path: error.errors?.[0]?.path ?? `/body/messages/${index}` };
    }
  });
}
