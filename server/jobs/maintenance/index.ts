// Maintenance: the chores, each on its own schedule, run only by the leader among the workers.
import type { Db } from "../../db/knex.js";
import type { Logger } from "../../logger.js";
import { applyRetentionChore, type RetentionPolicy } from "./applyRetention.js";
import type { Chore } from "./chore.js";
import {
  compactMessageCountsChore,
  completeFinishedCampaignsChore,
  deleteExpiredIdempotencyKeysChore,
  deleteExpiredUnmatchedReceiptsChore,
  deleteFinalizedJobsChore,
  releaseOrphanedReceiptsChore,
  releaseThrottledSendsChore,
  requeueReceiptsNowKnownChore,
  rescueExpiredJobsChore,
  rescueHandedDeliveriesChore,
  storeIncompleteInboundMessagesChore,
  unpinJobsChore,
} from "./chores.js";
import { Leader } from "./leader.js";

export { chore, type Chore } from "./chore.js";
export { Leader } from "./leader.js";

export interface Maintenance {
  leader: Leader;
  stop(): Promise<void>;
}

export function maintenanceChores(
  db: Db,
  opts: {
    leaseMs: number;
    jobRetentionMs: number;
    retention: RetentionPolicy;
    sendOutcomeResolveMs: number;
    inboundReassemblyTimeoutMs: number;
    autoReplyMaxPerHour: number;
    /** The throughput pacer's period (THROUGHPUT_PACER_MS) and the link's cap (PROVIDER_MAX_SEGMENTS_PER_SECOND). */
    throughputPacerMs: number;
    linkMaxSegmentsPerSecond: number | null;
    /** How often the workers refresh their connectors (CONNECTOR_REFRESH_MS) and how long one counts alive. */
    connectorRefreshMs: number;
    connectorLiveMs: number;
    log: Logger;
  },
): Chore[] {
  const rescueEveryMs = Math.max(100, Math.floor(opts.leaseMs / 3));
  return [
    rescueExpiredJobsChore(db, rescueEveryMs),
    rescueHandedDeliveriesChore(db, rescueEveryMs),
    releaseOrphanedReceiptsChore(db, rescueEveryMs),
    deleteFinalizedJobsChore(db, opts.jobRetentionMs),
    deleteExpiredIdempotencyKeysChore(db),
    completeFinishedCampaignsChore(db),
    applyRetentionChore(db, opts.retention),
    deleteExpiredUnmatchedReceiptsChore(db, opts.sendOutcomeResolveMs),
    requeueReceiptsNowKnownChore(db),
    storeIncompleteInboundMessagesChore(db, opts.log.child({ component: "inbound" }), {
      reassemblyTimeoutMs: opts.inboundReassemblyTimeoutMs,
      autoReplyMaxPerHour: opts.autoReplyMaxPerHour,
    }),
    releaseThrottledSendsChore(db, { linkMaxSegmentsPerSecond: opts.linkMaxSegmentsPerSecond, everyMs: opts.throughputPacerMs }),
    unpinJobsChore(db, opts.connectorLiveMs, opts.connectorRefreshMs),
    compactMessageCountsChore(db),
  ];
}

/** Runs each chore every `everyMs` while this worker leads; the leader is elected every `electEveryMs`. */
export function startMaintenance(opts: { databaseUrl: string; log: Logger; chores: Chore[]; electEveryMs: number }): Maintenance {
  const log = opts.log.child({ component: "maintenance" });
  const leader = new Leader({ databaseUrl: opts.databaseUrl, log, retryEveryMs: opts.electEveryMs });
  leader.start();
  const timers = opts.chores.map((c) => {
    // A tick while this timer's run is still going is skipped, not joined: a pacer run stuck a second on a lock
    // would otherwise have its one failure (or count) logged once per tick that joined it, eleven times.
    let running = false;
    const timer = setInterval(() => {
      if (!leader.isLeader || running) return;
      running = true;
      c.runOnce()
        .then(
          (n) => n && log[c.frequent ? "debug" : "info"]({ chore: c.name, count: n }, `${c.name}: ${n}`),
          (error: unknown) => log.warn({ err: error, chore: c.name }, `${c.name} failed`),
        )
        .finally(() => (running = false));
    }, c.everyMs);
    timer.unref();
    return timer;
  });
  return {
    leader,
    async stop() {
      timers.forEach(clearInterval);
      await leader.stop();
    },
  };
}
