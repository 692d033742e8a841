// A change of quietHours or defaultTimeZone while a worker is judging a message by the old settings: the
// worker read them before the change committed and holds the message after it, so the release (which makes
// held jobs due) found nothing held yet. The release also makes the account's running send jobs due, and the
// snooze that holds such a job keeps that time and wakes the workers: the message is judged again at once.
// The worker is played here statement by statement (claim, then snooze), so the order is certain.
import { afterEach, describe, expect, it } from "vitest";
import { claimJobs, snoozeJobs, type ClaimedJob } from "../../server/db/jobs/index.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { listenForWakeUps, type WakeUps } from "../helpers/wakeUps.js";

const server = useTestServer();
const WORKER = "judging-worker";
const LATER = () => new Date(Date.now() + 3 * 3600_000); // the old settings' hold: three hours on

let wakeUps: WakeUps | undefined;
afterEach(async () => {
  await wakeUps?.close();
  wakeUps = undefined;
  await server().db("jobs").del();
});

/** An account with quiet hours, and one marketing message whose send job this test's "worker" has claimed. */
async function judging(name: string): Promise<{ a: TestAccount; job: ClaimedJob }> {
  const a = await server().account(name);
  const patch = await a.request("PATCH", "/api/v1/account/settings", { quietHours: { start: "21:00", end: "08:00" } });
  expect(patch.status).toBe(200);
  const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
    body: {
      from: "ACME",
      to: "+14155550170",
      body: "sale",
      category: "marketing",
      scheduledAt: new Date(Date.now() + 60_000).toISOString(),
    },
  });
  // Due a second ago, at a time with microseconds (as now() gives them): the claim returns it to the millisecond.
  const { db } = server();
  await db.raw(
    `UPDATE jobs SET run_at = date_trunc('milliseconds', now()) - interval '1 second' + interval '123 microseconds'
      WHERE id = (SELECT job_id FROM messages WHERE id = ?)`,
    [data!.messageId],
  );
  const { jobs } = await claimJobs(db, WORKER, 10, 60_000);
  expect(jobs.map((j) => j.payload)).toEqual([{ messageId: data!.messageId }]);
  wakeUps = await listenForWakeUps(server().url);
  return { a, job: jobs[0]! };
}

const jobRow = (id: string) =>
  server().db("jobs").where({ id }).first("state", "run_at", server().db.raw("run_at <= now() AS due"), "locked_by");

describe("a settings change while a send job is being judged", () => {
  it("the job's hold by the old settings does not put it off: it is due at once, and the workers are woken", async () => {
    const { a, job } = await judging("judged-during-change");
    const patch = await a.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "America/New_York" });
    expect(patch.status).toBe(200);
    await snoozeJobs(server().db, WORKER, [{ id: job.id, runAt: LATER(), claimedRunAt: job.runAt }]);
    expect(await jobRow(job.id)).toMatchObject({ state: "available", due: true, locked_by: null });
    await wakeUps!.drained();
    expect(wakeUps!.heard).toEqual([""]);
  });

  it("without a change, the hold stands: the job waits for it, and nothing is announced", async () => {
    const { job } = await judging("judged-without-change");
    const later = LATER();
    await snoozeJobs(server().db, WORKER, [{ id: job.id, runAt: later, claimedRunAt: job.runAt }]);
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ state: "available", due: false });
    expect(new Date(row.run_at).getTime()).toBe(later.getTime());
    await wakeUps!.drained();
    expect(wakeUps!.heard).toEqual([]);
  });

  it("another account's change leaves the job alone", async () => {
    const { job } = await judging("judged-beside-change");
    const other = await server().account("changes-its-settings");
    expect((await other.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "America/New_York" })).status).toBe(200);
    await snoozeJobs(server().db, WORKER, [{ id: job.id, runAt: LATER(), claimedRunAt: job.runAt }]);
    expect(await jobRow(job.id)).toMatchObject({ state: "available", due: false });
    await wakeUps!.drained();
    expect(wakeUps!.heard).toEqual([]);
  });
});
