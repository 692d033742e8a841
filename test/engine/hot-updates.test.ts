// The message row's updates after it is made are HOT (heap-only: no index entry written) except the one that
// records the send (migration 064, docs/ARCHITECTURE.md "The life of a message"). PostgreSQL makes an update HOT
// only when it changes no column that any index of the table holds, in its keys, its expressions or its
// predicate, and the page has room (fillfactor). So: no index of messages may mention a column the claim, the
// on-the-wire mark, routing, a retry or the receipt changes. Read from the catalogue of the migrated schema,
// so a new index that names one fails here, with its name.
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

// What each step after the insert writes (server/db/messages/transitions.ts, statusChange.ts, quietHours.ts,
// smppMessageIds.ts), but the send's own columns: sent_at and provider_message_id (one write that may index).
const CHANGED_AFTER_THE_CLAIM = [
  "status",
  "submitted_at",
  "submitted_via",
  "connector_id",
  "waiting_for",
  "deferred_until",
  "attempts",
  "smpp_id",
  "delivered_at",
  "error_code",
  "error_message",
  "unknown_resent_at",
];

async function indexesOf(table: string): Promise<{ name: string; definition: string; fillfactor: string | null }[]> {
  const { rows } = await database().db.raw<{ rows: { name: string; definition: string; fillfactor: string | null }[] }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition,
            (SELECT option_value FROM pg_options_to_table(c.reloptions) WHERE option_name = 'fillfactor') AS fillfactor
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE i.indrelid = ?::regclass ORDER BY 1`,
    [table],
  );
  return rows;
}

describe("the message's updates after the claim write no index", () => {
  it("no index of messages holds a column a step after the claim changes", async () => {
    const indexes = await indexesOf("messages");
    expect(indexes.length).toBeGreaterThan(5);
    const offending = indexes.flatMap((i) =>
      CHANGED_AFTER_THE_CLAIM.filter((column) => new RegExp(`\\b${column}\\b`).test(i.definition)).map((column) => `${i.name}: ${column}`),
    );
    expect(offending).toEqual([]);
  });

  it("each page keeps room for the updates of its rows (fillfactor)", async () => {
    const [first] = await indexesOf("messages");
    expect(first!.fillfactor).not.toBeNull();
    expect(Number(first!.fillfactor)).toBeLessThanOrEqual(80);
  });
});

// A receipt delivery's outcome (migration 072, docs/ARCHITECTURE.md "A receipt's outcome is a HOT update"): what a
// final outcome writes (db/webhookDeliveries.ts finishDeliveries), and the lease of a previous release's handed
// delivery, which it also ends (NULL to NULL for this release's). gave_up changes only when a delivery fails for
// good, awaits_batch only for a batched webhook's, parked only behind an earlier one: rare steps that may index.
const CHANGED_BY_AN_OUTCOME = ["status", "finished_at", "attempts", "handoff_id", "handed_to", "handed_until"];

describe("a receipt delivery's outcome writes no index", () => {
  it("no index of webhook_deliveries holds a column a success changes, but the previous release's lease", async () => {
    const indexes = await indexesOf("webhook_deliveries");
    expect(indexes.length).toBeGreaterThan(4);
    const offending = indexes.flatMap((i) =>
      CHANGED_BY_AN_OUTCOME.filter((column) => new RegExp(`\\b${column}\\b`).test(i.definition)).map((column) => `${i.name}: ${column}`),
    );
    // The previous release's handed deliveries are found by it until the contract drops it; this release's have
    // NULL there, so their outcome leaves it unchanged.
    expect(offending).toEqual(["webhook_deliveries_handed_idx: handed_to", "webhook_deliveries_handed_idx: handed_until"]);
  });

  it("each page keeps room for the outcome of each of its rows (fillfactor 50: a row is updated once, whole)", async () => {
    const [first] = await indexesOf("webhook_deliveries");
    expect(Number(first!.fillfactor)).toBeLessThanOrEqual(50);
  });
});
