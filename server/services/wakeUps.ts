// The API's wake-ups for the messages it stores one request at a time, coalesced: one NOTIFY per process for
// every message committed while the previous NOTIFY was on its way, instead of one per message. Every
// NOTIFY is delivered to every listening backend and worker, and PostgreSQL serialises the commits of
// notifying transactions: with 32 requests in flight a NOTIFY each cost about a quarter of the PostgreSQL and
// worker CPU of a POST /messages (bench/NOTES.md, "Write budget").
// Sent after the message's commit, never before it, so a worker that wakes finds the job. A process that dies
// between the commit and its NOTIFY leaves the job to the workers' timers and safety poll (at most 5 s).
import type { Knex } from "knex";
import { batcher, type Batcher } from "../db/batcher.js";
import { notifyWorkers, wakeUpPayload } from "../db/jobs/index.js";

const coalescers = new WeakMap<Knex, Batcher<Date>>();

/**
 * Wakes the workers for a job due at `runAt`, committed on `db` (the process's pool, not a transaction), with
 * the next coalesced NOTIFY. Never throws: a lost wake-up is the safety poll's.
 */
export function wakeWorkersAfterCommit(db: Knex, runAt: Date): void {
  if (wakeUpPayload(runAt) === undefined) return;
  let wakeUps = coalescers.get(db);
  if (!wakeUps) {
    wakeUps = batcher<Date>((runAts) => notifyWorkers(db, new Date(Math.min(...runAts.map((d) => d.getTime())))));
    coalescers.set(db, wakeUps);
  }
  wakeUps.add(runAt).catch(() => undefined);
}
