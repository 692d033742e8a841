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
