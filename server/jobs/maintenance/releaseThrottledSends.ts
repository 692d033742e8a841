import type { Db } from "../../db/knex.js";
import { throughputLookaheadMs, throughputPacer } from "../../services/sendingPolicy/index.js";
import { chore } from "./chore.js";

/**
 * The throughput pacer (services/sendingPolicy/throughputPacer.ts): every `everyMs` (THROUGHPUT_PACER_MS) it releases the messages
 * waiting for an account's or the link's cap, in order of priority then scheduledAt, handing out slots up to two
 * periods ahead so that a tick that comes late leaves no gap in the cap's use.
 */
export const releaseThrottledSendsChore = (db: Db, opts: { linkMaxSegmentsPerSecond: number | null; everyMs: number }) =>
  chore(
    "release throttled sends",
    opts.everyMs,
    throughputPacer(db, { linkMaxSegmentsPerSecond: opts.linkMaxSegmentsPerSecond, lookaheadMs: throughputLookaheadMs(opts.everyMs) }),
    { frequent: true },
  );
