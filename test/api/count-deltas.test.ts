// Counts without a row per request (migration 070, docs/REPORTS.md, "How counts are kept"): a statement that
// makes events adds them to its connection's delta row for their key. No worker here, so nothing folds the
// rows while the requests run: what the requests wrote is what is read.
import { describe, expect, it } from "vitest";
import { compactMessageCounts } from "../../server/db/messageCounts.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

interface DeltaRow {
  backend: string;
  messages: string;
}

const deltas = (accountId: string) =>
  server().db("message_count_deltas").where({ account_id: accountId, event: "accepted" }).select<DeltaRow[]>("backend", "messages");

describe("message count deltas", () => {
  it("requests add to their connection's row: one row per connection and key, the total exact", async () => {
    const a = await server().account();
    const n = 120;
    let next = 0;
    // 12 requests in flight: the pool's connections each take many of them, concurrently with each other.
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        while (next < n) {
          next += 1;
          const res = await a.request("POST", "/api/v1/messages", { to: "+14155550123", from: "ACME", body: "code 1234" });
          expect(res.status).toBe(201);
        }
      }),
    );
    const rows = await deltas(a.accountId);
    expect(rows.reduce((sum, r) => sum + Number(r.messages), 0)).toBe(n);
    expect(new Set(rows.map((r) => r.backend)).size).toBe(rows.length);
    expect(rows.every((r) => Number(r.backend) > 0)).toBe(true);
    // At most one row per connection of the pool (DB_POOL_MAX, 25 by default), not one per request.
    expect(rows.length).toBeLessThanOrEqual(25);
    // The fold moves them all into message_counts.
    await compactMessageCounts(server().db);
    expect(await deltas(a.accountId)).toEqual([]);
    const [counted] = await server()
      .db("message_counts")
      .where({ account_id: a.accountId, event: "accepted" })
      .sum<{ n: string }[]>({ n: "messages" });
    expect(Number(counted!.n)).toBe(n);
  });

  it("a row written without a connection (a trigger counting an older release's statement) never meets the key", async () => {
    const a = await server().account();
    const row = {
      account_id: a.accountId,
      bucket: new Date("2026-01-01T00:00:00Z"),
      event: "accepted",
      country: "US",
      category: "transactional",
      campaign_id: "00000000-0000-0000-0000-000000000000",
      connector_id: "00000000-0000-0000-0000-000000000000",
      error_code: "",
      ttd: -1,
      messages: 1,
      segments: 1,
    };
    await server().db("message_count_deltas").insert(row);
    await server().db("message_count_deltas").insert(row);
    const rows = await deltas(a.accountId);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => Number(r.backend) < 0)).toBe(true);
  });
});
