// Batches that arrive while their kind is busy wait and run together. The runner starts a batch with whatever
// its lane had queued when slots freed; under load slots free one or two at a time (a receipt finished, a
// send settled), so a batch kind's batches shrink to a job or two, and each pays its statements for one job:
// over SMPP, 1,809 of 1,830 send windows held ONE message (bench/NOTES.md, "bench:smpp"). Wrapped, at most
// `running` batches of the kind run at once in this worker; what arrives meanwhile is merged into the next
// one, so under load batches fill up, and an idle worker still starts a job at once.
import type { JobKind, JobRow } from "../db/jobs/index.js";
import { toError } from "./execution.js";
import type { BatchJobHandler, JobContext } from "./types.js";

interface Waiting<K extends JobKind> {
  jobs: JobRow<K>[];
  ctx: JobContext;
  done: (outcomes: (Error | undefined)[]) => void;
}

export function coalesced<K extends JobKind>(handler: BatchJobHandler<K>, opts: { running: number }): BatchJobHandler<K> {
  let running = 0;
  let waiting: Waiting<K>[] = [];

  const start = () => {
    while (running < opts.running && waiting.length > 0) {
      const group = waiting;
      waiting = [];
      running++;
      void runMerged(handler, group).finally(() => {
        running--;
        start();
      });
    }
  };

  return {
    batch: (jobs, ctx) =>
      new Promise((done) => {
        waiting.push({ jobs, ctx, done });
        start();
      }),
  };
}

/** Runs the merged batches as one; each gets its own jobs' outcomes (or the error that ended the whole). */
async function runMerged<K extends JobKind>(handler: BatchJobHandler<K>, group: Waiting<K>[]): Promise<void> {
  if (group.length === 1) {
    const [only] = group;
    only!.done(await handler.batch(only!.jobs, only!.ctx).catch((error: unknown) => only!.jobs.map(() => toError(error))));
    return;
  }
  // Job i of the merged batch is job `index` of batch `of`.
  const place = group.flatMap((w, of) => w.jobs.map((_j, index) => ({ of, index })));
  const first = group[0]!.ctx;
  let signal: AbortSignal | undefined;
  const ctx: JobContext = {
    workerId: first.workerId,
    log: first.log,
    // Made on first use, as each batch's own is (execution.ts).
    get signal() {
      return (signal ??= AbortSignal.any(group.map((w) => w.ctx.signal)));
    },
    settle: (i, outcome) => {
      const p = place[i]!;
      group[p.of]!.ctx.settle(p.index, outcome);
    },
    handoff: first.handoff,
  };
  const jobs = group.flatMap((w) => w.jobs);
  const outcomes = await handler.batch(jobs, ctx).catch((error: unknown) => jobs.map(() => toError(error)));
  let at = 0;
  for (const w of group) {
    w.done(outcomes.slice(at, at + w.jobs.length));
    at += w.jobs.length;
  }
}
