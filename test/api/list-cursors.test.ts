// Every row of every list reachable exactly once through its cursor, whatever the timestamps: many rows in
// one statement share created_at to the microsecond, and rows a few microseconds apart share the millisecond.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { insertCampaign } from "../../server/db/campaigns.js";
import { insertDueMessages } from "../helpers/messages.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();

/** Walks a list with `limit` per page; returns the ids in the order seen. */
async function walk(a: TestAccount, path: string, idKey: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `${path}${path.includes("?") ? "&" : "?"}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await a.request("GET", url);
    expect(res.status, url).toBe(200);
    const page = (await res.json()) as { data: Record<string, string>[]; nextCursor: string | null };
    ids.push(...page.data.map((row) => row[idKey]!));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** Gives the rows created_at values within one millisecond: groups of 7 rows share each microsecond. */
async function crowdTimestamps(table: string, where: Record<string, string>) {
  await server().db.raw(
    `UPDATE ${table} t SET created_at = timestamptz '2026-03-01 12:00:00.123Z' + (n.rn / 7) * interval '1 microsecond'
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM ${table} WHERE ${Object.keys(where)
         .map((k) => `${k} = ?`)
         .join(" AND ")}) n
      WHERE t.id = n.id`,
    Object.values(where),
  );
}

function expectEachOnce(seen: string[], expected: string[]) {
  expect(seen).toHaveLength(expected.length);
  expect(new Set(seen)).toEqual(new Set(expected));
}

describe("list cursors", () => {
  it("pages through 60 contacts imported in one request (one created_at) with limit=25", async () => {
    const a = await server().account();
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550100" } });
    const contacts = Array.from({ length: 60 }, (_v, i) => ({ phone: `+1415556${String(1000 + i)}` }));
    const { data } = await a.client.POST("/api/v1/contacts/import", { body: { contacts } });
    expect(data!.imported).toBe(60);
    const all = (await server().db("contacts").where({ account_id: a.accountId }).select("id")).map((r) => r.id as string);
    expectEachOnce(await walk(a, "/api/v1/contacts", "contactId", 25), all);
    await crowdTimestamps("contacts", { account_id: a.accountId });
    expectEachOnce(await walk(a, "/api/v1/contacts", "contactId", 4), all);
  });

  it("pages through messages whose created_at differ by microseconds", async () => {
    const a = await server().account();
    const ids = await insertDueMessages(server().db, a.accountId, 50, { dueAt: () => new Date(Date.now() + 3_600_000) });
    expectEachOnce(await walk(a, "/api/v1/messages", "messageId", 25), ids);
    await crowdTimestamps("messages", { account_id: a.accountId });
    expectEachOnce(await walk(a, "/api/v1/messages", "messageId", 3), ids);
  });

  it("pages through campaigns whose created_at differ by microseconds", async () => {
    const a = await server().account();
    const ids = Array.from({ length: 30 }, () => randomUUID());
    await server().db.transaction(async (tx) => {
      for (const id of ids) {
        await insertCampaign(tx, a.accountId, {
          id,
          name: "c",
          message: "hi",
          type: "instant",
          from: "ACME",
          groupId: null,
          scheduledAt: null,
        });
      }
    });
    await crowdTimestamps("campaigns", { account_id: a.accountId });
    expectEachOnce(await walk(a, "/api/v1/campaigns", "campaignId", 4), ids);
  });

  it("pages through a webhook's deliveries whose created_at differ by microseconds", async () => {
    const a = await server().account();
    const { data: hook } = await a.client.POST("/api/v1/webhooks", { body: { name: "r", url: "http://127.0.0.1:9/dlr" } });
    const messageIds = await insertDueMessages(server().db, a.accountId, 30, { dueAt: () => new Date(Date.now() + 3_600_000) });
    const ids = messageIds.map(() => randomUUID());
    await server()
      .db("webhook_deliveries")
      .insert(
        ids.map((id, i) => ({
          id,
          webhook_id: hook!.webhookId,
          account_id: a.accountId,
          message_id: messageIds[i],
          event: "message.delivered",
          seq: 1,
          body: "{}",
        })),
      );
    expectEachOnce(await walk(a, `/api/v1/webhooks/${hook!.webhookId}/deliveries`, "deliveryId", 7), ids);
    await crowdTimestamps("webhook_deliveries", { webhook_id: hook!.webhookId });
    expectEachOnce(await walk(a, `/api/v1/webhooks/${hook!.webhookId}/deliveries`, "deliveryId", 4), ids);
  });
});
