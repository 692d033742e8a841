// server/db/schema.sql is what a fresh migrate leaves: a migration that changes the schema without it fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readSchemaSnapshot } from "../../server/db/schemaSnapshot.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

describe("schema snapshot", () => {
  it("server/db/schema.sql is the schema of a fresh migrate (npm run schema rewrites it)", async () => {
    const committed = readFileSync(new URL("../../server/db/schema.sql", import.meta.url), "utf8");
    const migrated = await readSchemaSnapshot(database().db);
    expect(migrated, "the migrations changed the schema: run npm run schema and commit server/db/schema.sql").toBe(committed);
  });

  it("names every table, index and function the code relies on", () => {
    const committed = readFileSync(new URL("../../server/db/schema.sql", import.meta.url), "utf8");
    for (const name of ["CREATE TABLE jobs (", "jobs_lane_priority_claim_idx", "FUNCTION claim_jobs_v3(", "FUNCTION job_account_of("])
      expect(committed).toContain(name);
  });
});
