// Processes started together on an empty database (the all-in-one start beside worker processes, or several
// workers at once) each look for the first-start account. Each found none and made account `default`; all but
// one then died on its unique name (seen in test/engine/workers.test.ts, three workers started at once). Now the
// first start is serialised (operator/accountsTable.ts, lockFirstStart): one process makes the keys, the
// others find its account and start.
import { describe, expect, it } from "vitest";
import { createDb } from "../../server/db/knex.js";
import { createFirstStartKeys } from "../../server/operator/index.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

describe("the first start", () => {
  it("made by five processes at once on an empty database: one makes the keys, none fails", { timeout: 60_000 }, async () => {
    // Five pools, as five processes have: each call has its own connections.
    const pools = Array.from({ length: 5 }, () => createDb(database().url, 2));
    try {
      for (let round = 0; round < 5; round++) {
        await database().db.raw("TRUNCATE accounts, api_keys, audit_events CASCADE");
        const results = await Promise.allSettled(pools.map((p) => createFirstStartKeys(p, "development")));
        expect(results.filter((r) => r.status === "rejected")).toEqual([]);
        const made = results.filter((r) => r.status === "fulfilled" && r.value !== undefined);
        expect(made).toHaveLength(1);
        expect(await database().db("accounts").pluck("name")).toEqual(["default"]);
      }
    } finally {
      await Promise.all(pools.map((p) => p.destroy()));
    }
  });
});
