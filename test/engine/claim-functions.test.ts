// The claim functions' migrations are frozen (each holds the text it ran), and db/jobs/functions/ describes the
// live ones with the pieces the plan tests read (test/helpers/explain.ts). This holds that description to the
// database: the body each file makes is the body of the function the migrations created, character for
// character, so the pieces the plan tests take from it are the live claim's.
import { describe, expect, it } from "vitest";
import { CLAIM_JOBS_V3 } from "../../server/db/jobs/functions/claimJobsV3.js";
import { CLAIM_JOBS_V6 } from "../../server/db/jobs/functions/fairClaim.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

/** The bodies (between $$ … $$) of the CREATE FUNCTION statements in a text, in order. */
const bodies = (text: string) => [...text.matchAll(/\$\$([\s\S]*?)\$\$/g)].map((m) => m[1]!);

describe("the live claim functions", () => {
  it("have exactly the bodies db/jobs/functions/ makes for them", async () => {
    const stored = async (name: string) =>
      (
        await server().db.raw<{ rows: { prosrc: string }[] }>("SELECT prosrc FROM pg_proc WHERE proname = ? ORDER BY pronargs DESC", [name])
      ).rows.map((r) => r.prosrc);
    expect(await stored("claim_jobs_v3")).toEqual(bodies(CLAIM_JOBS_V3));
    expect(await stored("claim_jobs_v6")).toEqual(bodies(CLAIM_JOBS_V6));
  });
});
