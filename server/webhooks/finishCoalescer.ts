// Delivery outcomes are recorded as soon as each POST ends (a slow receiver must not hold up the bookkeeping
// of others), but not one statement each: outcomes that arrive while a write is in flight, or in the same
// turn of the event loop, are written together by the next one. Measured with bench:dispatch
// (BENCH_PG_STATS=1): with one statement per outcome, finishing and releasing receipts were 20,000 of the
// run's statements for 5,000 messages, and a third of a worker's CPU was the write() of queries to PostgreSQL.
import type { Db } from "../db/knex.js";
import { finishDeliveries, type AttemptOutcome } from "../db/webhookDeliveries.js";

interface Waiting {
  outcome: AttemptOutcome;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function finishCoalescer(db: Db): (outcome: AttemptOutcome) => Promise<void> {
  let waiting: Waiting[] = [];
  let scheduled = false;
  let inFlight = false;

  const flush = async () => {
    scheduled = false;
    if (inFlight || waiting.length === 0) return;
    inFlight = true;
    const batch = waiting;
    waiting = [];
    try {
      await finishDeliveries(db, batch.map((w) => w.outcome));
      for (const w of batch) w.resolve();
    } catch (error) {
      for (const w of batch) w.reject(error);
    } finally {
      inFlight = false;
      if (waiting.length) schedule();
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };

  return (outcome) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ outcome, resolve, reject });
      if (!inFlight) schedule();
    });
}
