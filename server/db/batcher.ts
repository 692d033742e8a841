// Collects items written one by one into few statements: job completions (jobs/completer.ts), receipt finishes
// (jobs/handlers/deliverReceipt.ts) and SMPP receipts stored before their deliver_sm_resp (providers/index.ts).
// The first item waits `delayMs` for company (0: the rest of this turn of the event loop), or not at all once
// `maxBatch` items wait; while a write is in flight, everything that arrives meanwhile is written together by
// the next one: a statement per item was most of a run's statements and a third of a worker's CPU
// (bench/NOTES.md, "Figures behind the code").

export interface Batcher<T> {
  /** Resolves once the item's batch is written; rejects with the write's error. */
  add(item: T): Promise<void>;
  /** Writes everything added so far (waits for a write in flight first). */
  flush(): Promise<void>;
}

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function batcher<T>(write: (items: T[]) => Promise<void>, opts: { delayMs?: number; maxBatch?: number } = {}): Batcher<T> {
  const delayMs = opts.delayMs ?? 0;
  const maxBatch = opts.maxBatch ?? Infinity;
  let waiting: Waiting<T>[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let inFlight: Promise<void> | undefined;

  const clearTimer = () => {
    if (timer && delayMs === 0) clearImmediate(timer as NodeJS.Immediate);
    else if (timer) clearTimeout(timer as NodeJS.Timeout);
    timer = undefined;
  };

  const writeWaiting = (): Promise<void> => {
    clearTimer();
    if (inFlight || waiting.length === 0) return inFlight ?? Promise.resolve();
    const batch = waiting;
    waiting = [];
    inFlight = write(batch.map((w) => w.item)).then(
      () => {
        for (const w of batch) w.resolve();
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
      },
    );
    return inFlight.finally(() => {
      inFlight = undefined;
      // These waited for the write in flight already: no further delay.
      if (waiting.length > 0) void writeWaiting();
    });
  };

  const schedule = () => {
    if (inFlight !== undefined) return; // written when the write in flight ends
    if (waiting.length >= maxBatch) void writeWaiting();
    else timer ??= delayMs === 0 ? setImmediate(() => void writeWaiting()) : setTimeout(() => void writeWaiting(), delayMs);
  };

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        schedule();
      });
    },
    async flush() {
      while (inFlight || waiting.length > 0) await (inFlight ?? writeWaiting()).catch(() => undefined);
    },
  };
}
