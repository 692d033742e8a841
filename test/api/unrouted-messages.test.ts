// Inbound messages to a number no account holds are kept for the operator (GET /api/v1/unrouted-messages),
// never dropped and never shown to an account; retention deletes them after MESSAGE_RETENTION_DAYS.
import { describe, expect, it } from "vitest";
import { applyRetention } from "../../server/jobs/maintenance/applyRetention.js";
import { createLogger } from "../../server/logger.js";
import { receiveInboundMessage } from "../../server/services/inbound.js";
import { createOperatorKey } from "../../server/operator/index.js";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const log = createLogger("silent");
const POLICY = { autoReplyMaxPerHour: 100 };

async function list(key: string, query = "") {
  const res = await fetch(`${server().baseUrl}/api/v1/unrouted-messages${query}`, { headers: { Authorization: `Bearer ${key}` } });
  return res;
}

describe("unrouted inbound messages", () => {
  it("are kept for the operator, listed newest first page by page, and never reach an account", async () => {
    const { db } = server();
    const account = await server().account();
    expect((await account.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550700" })).status).toBe(201);
    const at = new Date();
    for (let i = 0; i < 3; i++)
      expect(
        await receiveInboundMessage(
          db,
          log,
          { from: `+1415555071${i}`, to: "+14155550799", body: `hello ${i} 👋`, receivedAt: at },
          POLICY,
        ),
      ).toBeUndefined();
    // A held number still routes as before.
    expect(
      await receiveInboundMessage(db, log, { from: "+14155550719", to: "+14155550700", body: "routed", receivedAt: at }, POLICY),
    ).toMatchObject({
      accountId: account.accountId,
    });

    const operator = await createOperatorKey(db, "unrouted");
    const first = await list(operator.key, "?limit=2");
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as { data: Record<string, unknown>[]; nextCursor: string | null };
    expect(page1.data.map((m) => m.from)).toEqual(["+14155550712", "+14155550711"]);
    expect(page1.data[0]).toEqual({
      unroutedMessageId: expect.any(String),
      from: "+14155550712",
      to: "+14155550799",
      body: "hello 2 👋",
      segments: 1,
      encoding: "UCS-2",
      incomplete: false,
      receivedAt: at.toISOString(),
    });
    const page2 = (await (await list(operator.key, `?limit=2&cursor=${page1.nextCursor}`)).json()) as {
      data: { from: string }[];
      nextCursor: null;
    };
    expect(page2).toEqual({ data: [expect.objectContaining({ from: "+14155550710" })], nextCursor: null });

    // An account key may not read them, and the account's own list has none of them.
    const refused = await list(account.key);
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).code).toBe("wrong_key_kind");
    const { data: mine } = await account.client.GET("/api/v1/messages", { params: { query: { direction: "inbound" } } });
    expect(mine!.data.map((m) => m.body)).toEqual(["routed"]);
  });

  it("are deleted by retention after MESSAGE_RETENTION_DAYS, like messages", async () => {
    const { db } = server();
    await db("unrouted_messages").del();
    await db("unrouted_messages").insert([
      {
        sender: "+14155550721",
        recipient: "+14155550798",
        body: "old",
        segments: 1,
        encoding: "GSM-7",
        received_at: new Date(),
        created_at: new Date(Date.now() - 401 * 86_400_000),
      },
      { sender: "+14155550722", recipient: "+14155550798", body: "recent", segments: 1, encoding: "GSM-7", received_at: new Date() },
    ]);
    await applyRetention(db, { messageRetentionDays: 400, deliveryLogRetentionDays: 30, messageBodyRetentionDays: 0, batchSize: 10 });
    expect(await db("unrouted_messages").pluck("body")).toEqual(["recent"]);
  });
});
