import type { JobKind, JobKinds } from "./kinds.js";

/**
 * The states of a job (the CHECK constraints of the jobs table, jobs_state_check and jobs_finalized_check, hold
 * these and the lease and finalized_at rules that go with them). Every statement that moves a job between them
 * is a module of this folder; the reapers are rescueExpiredJobs (an expired lease → retryable) and
 * deleteFinalizedJobs (final jobs, after JOB_RETENTION_HOURS).
 *
 *   available  waiting for run_at; claimable once it has passed (new jobs, released or snoozed ones).
 *   running    claimed by locked_by, whose lease runs until locked_until (the heartbeat extends it).
 *   retryable  an attempt failed, or its worker's lease expired; claimable again at run_at.
 *   cancelled  its message was cancelled before the job ran (final).
 *   discarded  out of attempts, or failed permanently (final).
 *
 *   available → running → (deleted: it succeeded, completeJobs) | retryable | discarded
 *                       | available (snoozed, or released at shutdown)
 *   retryable → running;  available | retryable → cancelled
 *   Final jobs (cancelled, discarded) carry finalized_at and are deleted after JOB_RETENTION_HOURS.
 */
export type JobState = "available" | "running" | "retryable" | "cancelled" | "discarded";

/** A claimed job as the table holds it: any kind, its payload not yet typed. */
export interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
  /** The account whose work it is (jobs.account_id); null for an SMSC's receipt not matched yet. */
  accountId: string | null;
  /**
   * No row in the job table: a receipt delivery handed to the worker whose status change made it, its lease the
   * delivery row's (webhook_deliveries.handed_to/handed_until; docs/ARCHITECTURE.md, "Handoff"). Its handler
   * writes every outcome itself (a retry or a wait becomes a job then); the runner writes none, and extends and
   * releases its lease through RowlessLeases.
   */
  rowless?: true;
}

/** A claimed job of a known kind, its payload typed by the kind map. */
export type JobRow<K extends JobKind = JobKind> = { [P in K]: Omit<ClaimedJob, "kind" | "payload"> & { kind: P; payload: JobKinds[P] } }[K];

/**
 * A lane of this worker that takes jobs a statement inserts already claimed for it, to run them without a
 * claim (the runner's handoff, docs/ARCHITECTURE.md "Handoff"). `reserve` asks for up to `n` places in the
 * lane's local queue and returns how many it got; `adopt` hands over the jobs inserted for them (and gives
 * back the places not used), `release` gives the places back when the statement failed.
 */
export interface JobHandoff {
  workerId: string;
  leaseMs: number;
  reserve(n: number): number;
  adopt(jobs: ClaimedJob[], reserved: number): void;
  release(reserved: number): void;
}
