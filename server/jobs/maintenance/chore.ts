// A maintenance chore: one job of upkeep, run every `everyMs` by the leader (leader.ts). runOnce is what the
// schedule calls and what tests call directly; it never overlaps itself: a call while a run is in progress
// joins that run instead of starting a second one (a slow sweep must not pile up behind its own timer).
export interface Chore {
  readonly name: string;
  readonly everyMs: number;
  /** A chore that runs many times a second logs what it handled at debug level only. */
  readonly frequent?: boolean;
  /** Runs the chore (or joins the run in progress); resolves to how many rows it handled. */
  runOnce(): Promise<number>;
}

export function chore(name: string, everyMs: number, run: () => Promise<number>, opts: { frequent?: boolean } = {}): Chore {
  let inProgress: Promise<number> | undefined;
  return {
    name,
    everyMs,
    frequent: opts.frequent,
    runOnce() {
      inProgress ??= run().finally(() => (inProgress = undefined));
      return inProgress;
    },
  };
}
