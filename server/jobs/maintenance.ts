// Maintenance services, each with a runOnce that tests call directly, and a start() that repeats it.
import { completeFinishedCampaigns } from "../db/campaigns.js";
import { deleteFinalizedJobs, rescueExpiredJobs } from "../db/jobs/index.js";
import { deleteExpiredIdempotencyKeys } from "../db/idempotencyKeys.js";
import { releaseOrphanedParkedDeliveries } from "../db/webhookDeliveries.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";

export interface Service {
  runOnce(): Promise<number>;
  start(): void;
  stop(): void;
}

function periodic(name: string, everyMs: number, log: Logger, runOnce: () => Promise<number>): Service {
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const n = await runOnce();
      if (n) log.info({ service: name, count: n }, `${name} ran`);
    } catch (error) {
      log.warn({ err: error, service: name }, `${name} failed`);
    }
  };
  return {
    runOnce,
    start() {
      timer = setInterval(() => void tick(), everyMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * Picks up what a crash left behind: jobs whose lease expired (their worker died) become claimable again, and
 * receipts left parked behind an earlier one that has finished are released.
 */
export function createRescuer(db: Db, log: Logger, everyMs = 5_000): Service {
  return periodic("rescuer", everyMs, log, async () => (await rescueExpiredJobs(db)) + (await releaseOrphanedParkedDeliveries(db)));
}

/** Deletes finished jobs after `retentionMs` and idempotency keys after their 24 h; completes done campaigns. */
export function createCleaner(db: Db, log: Logger, retentionMs: number, everyMs = 60_000): Service {
  return periodic("cleaner", everyMs, log, async () => {
    let total = 0;
    for (let n = -1; n !== 0; total += n) n = await deleteFinalizedJobs(db, retentionMs);
    return total + (await deleteExpiredIdempotencyKeys(db)) + (await completeFinishedCampaigns(db));
  });
}
