// The default lane's fair claim (claim_jobs_v6, db/jobs/functions/fairClaim.ts), called directly: a window is
// shared between the accounts with due jobs by weight, priority orders jobs within an account only, a worker's cursor walks the accounts in turn
// when there are more than a window holds, timed jobs go first and unmatched receipts take at most half while
// accounts have due jobs, and the whole window when none have.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { claimJobs, type Claim } from "../../server/db/jobs/index.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const KIND = "test_fair";

afterEach(async () => {
  await server().db("jobs").where({ kind: KIND }).del();
});

/** Inserts `n` due jobs of `account` (null: an unmatched receipt) at `priority`, due `agoSeconds` ago and earlier. */
async function insertDue(account: string | null, n: number, priority = 1, agoSeconds = 10): Promise<void> {
  await server().db.raw(
    `INSERT INTO jobs (kind, payload, max_attempts, run_at, priority, account_id)
     SELECT ?, '{}'::jsonb, 3, now() - make_interval(secs => ? + g), ?, ?::uuid FROM generate_series(1, ?) g`,
    [KIND, agoSeconds, priority, account, n],
  );
}

/** A worker's claims as the runner makes them: each starts after the account the previous one served last. */
function claimer(worker = "W") {
  let cursor: string | null = null;
  return async (limit: number): Promise<Claim> => {
    const claim = await claimJobs(server().db, worker, limit, 60_000, "default", cursor);
    cursor = claim.lastAccount ?? cursor;
    return claim;
  };
}

const countBy = (claim: Claim) => {
  const counts = new Map<string | null, number>();
  for (const job of claim.jobs) counts.set(job.accountId, (counts.get(job.accountId) ?? 0) + 1);
  return counts;
};

describe("the fair claim", () => {
  it("shares every window 3:1 between two saturating accounts weighted 3 and 1", async () => {
    const operator = await server().operator();
    const heavy = await server().account();
    const light = await server().account();
    const patched = await operator.request("PATCH", `/api/v1/accounts/${heavy.accountId}`, { weight: 3 });
    expect(patched.status).toBe(200);
    await insertDue(heavy.accountId, 3_000);
    await insertDue(light.accountId, 3_000);
    const claim = claimer();
    const totals = { heavy: 0, light: 0 };
    for (let window = 0; window < 30; window++) {
      const counts = countBy(await claim(100));
      expect([counts.get(heavy.accountId), counts.get(light.accountId)]).toEqual([75, 25]);
      totals.heavy += counts.get(heavy.accountId)!;
      totals.light += counts.get(light.accountId)!;
    }
    expect(totals).toEqual({ heavy: 2_250, light: 750 });
  });

  it("gives an account alone the whole window, and what another leaves to the accounts that have more", async () => {
    const big = randomUUID();
    const small = randomUUID();
    await insertDue(big, 500);
    const claim = claimer();
    expect(countBy(await claim(100)).get(big)).toBe(100);
    await insertDue(small, 7);
    const shared = countBy(await claim(100));
    expect([shared.get(big), shared.get(small)]).toEqual([93, 7]);
  });

  it("takes an account's high jobs before its low ones due earlier, while sharing the window with another", async () => {
    const a = randomUUID();
    const b = randomUUID();
    await insertDue(a, 200, 2, 3_600); // a's low backlog, due an hour ago
    await insertDue(b, 200, 1);
    await insertDue(a, 5, 0, 0); // a's high jobs, due just now
    const { jobs } = await claimer()(20);
    const ofA = jobs.filter((j) => j.accountId === a);
    expect(ofA).toHaveLength(10);
    const highIds = await server().db("jobs").where({ kind: KIND, account_id: a, priority: 0 }).pluck("id");
    expect(
      ofA
        .slice(0, 5)
        .map((j) => j.id)
        .sort(),
    ).toEqual([...highIds].sort());
    expect(jobs.filter((j) => j.accountId === b)).toHaveLength(10);
  });

  it("with more accounts due than a window holds, serves each in turn: 250 accounts in five windows of 50", async () => {
    const accounts: string[] = Array.from({ length: 250 }, () => randomUUID());
    for (const account of accounts) await insertDue(account, 2);
    const claim = claimer();
    const served: string[] = [];
    for (let window = 0; window < 5; window++) {
      const counts = countBy(await claim(50));
      expect(counts.size).toBe(50);
      served.push(...(counts.keys() as Iterable<string>));
    }
    expect(new Set(served).size).toBe(250);
    // The second job of each account, in the same turns.
    const again = countBy(await claim(50));
    expect([...again.keys()].every((account) => accounts.includes(account!))).toBe(true);
    expect(again.size).toBe(50);
  });

  it("claims timed jobs of every account first, and unmatched receipts in at most half of a window", async () => {
    const paid = randomUUID();
    const busy = randomUUID();
    await insertDue(busy, 300, 0);
    await insertDue(null, 300);
    await insertDue(paid, 4, -1, 0);
    const { jobs } = await claimer()(40);
    expect(jobs.slice(0, 4).map((j) => j.accountId)).toEqual([paid, paid, paid, paid]);
    // Unmatched receipts get an account when claimed (none here: the payload names no message).
    const unmatched = jobs.filter((j) => j.accountId === null);
    expect(unmatched).toHaveLength(20);
    expect(jobs.filter((j) => j.accountId === busy)).toHaveLength(16);
  });

  it("fills the window with unmatched receipts when no account has due jobs, or the room the accounts leave", async () => {
    await insertDue(null, 100);
    // A short claim tells the worker nothing more is due (jobs/producer.ts): 40 asked, 40 given.
    expect((await claimer()(40)).jobs).toHaveLength(40);
    const few = randomUUID();
    await insertDue(few, 3, 1, 20);
    const counts = countBy(await claimer()(40));
    expect(counts.get(few)).toBe(3);
    expect(counts.get(null)).toBe(37);
  });
});
