// The sending policy's types: what a stage decides and what every stage of one call sees.
import type { Db } from "../../db/knex.js";
import type { PolicyFacts } from "../../db/sendingPolicy.js";

export interface Hold {
  /** When the message's send job is due again. */
  until: Date;
  /** Why, for the job's log. */
  reason: string;
  /** Due shortly and on time (a throughput slot just ahead): the workers are woken for it. */
  wake?: boolean;
}

export interface PolicyDecision {
  /** Cleared to go now, in the order they are to go. */
  admitted: string[];
  /** Not now; every other message of the call was not for the policy (not scheduled any more, or past its validity). */
  held: Map<string, Hold>;
}

export interface SendingPolicyOptions {
  /** PROVIDER_MAX_SEGMENTS_PER_SECOND: a cap on the whole link, or null for none. */
  linkMaxSegmentsPerSecond: number | null;
  /**
   * The clock whose local wall-clock time the rules read (quiet hours); the real clock unless a test pins it
   * (`clock` of server/worker.ts). Job times (a hold's `until`) are always real time.
   */
  clock?: () => Date;
  /**
   * How far ahead a capped message with nothing waiting ahead of it may take a slot (its job then waits for the
   * slot): the throughput pacer's lookahead, twice THROUGHPUT_PACER_MS. Default 0: now or never.
   */
  throughputLookaheadMs?: number;
}

/** What every stage of one call sees. */
export interface PolicyContext {
  /** The policy clock's time, read once per call. */
  now: Date;
  /** An instant of the policy clock as real time, for a job's run_at: the same instant unless a test shifted the clock. */
  toJobTime: (at: Date) => Date;
  /** The service-wide settings. */
  opts: SendingPolicyOptions;
  /** The account of each message decided on (for the statements on messages held by an earlier stage). */
  accountOf: Map<string, string>;
}

/**
 * A stage of the policy: decides some of the messages (holds them) and passes the others on. `held` holds what
 * earlier stages held.
 */
export type PolicyStage = (db: Db, messages: PolicyFacts[], held: Map<string, Hold>, ctx: PolicyContext) => Promise<PolicyFacts[]>;
