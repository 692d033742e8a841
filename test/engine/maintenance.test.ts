// Maintenance runs on one worker at a time (an advisory-lock leader), and a chore never overlaps itself.
import { afterEach, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { chore, type Chore } from "../../server/jobs/maintenance/chore.js";
import { startMaintenance } from "../../server/jobs/maintenance/index.js";
import { Leader } from "../../server/jobs/maintenance/leader.js";
import { createLogger } from "../../server/logger.js";
import { useTestDatabase } from "../helpers/database.js";
import { waitUntil } from "../helpers/wait.js";

const database = useTestDatabase();
const log = createLogger("silent");
const leaders: Leader[] = [];

function leader(): Leader {
  const l = new Leader({ databaseUrl: database().url, log, retryEveryMs: 50 });
  leaders.push(l);
  l.start();
  return l;
}

afterEach(async () => {
  await Promise.all(leaders.splice(0).map((l) => l.stop()));
});

const leading = (ls: Leader[]) => ls.filter((l) => l.isLeader);

describe("the maintenance leader", () => {
  it("of two workers, exactly one leads; when it stops, the other takes over", async () => {
    const [a, b] = [leader(), leader()];
    const first = await waitUntil("a leader", async () => leading([a, b]).length === 1 && leading([a, b])[0]);
    const other = first === a ? b : a;
    // Several election rounds later, still exactly one.
    await new Promise((r) => setTimeout(r, 300));
    expect(leading([a, b])).toEqual([first]);
    await first.stop();
    await waitUntil("the other worker leading", async () => other.isLeader);
    expect(first.isLeader).toBe(false);
  });

  it("when the leader's session dies, another worker takes the lead", async () => {
    const [a, b] = [leader(), leader()];
    await waitUntil("a leader", async () => leading([a, b]).length === 1);
    const { rows } = await database().db.raw(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    expect(rows).toHaveLength(1);
    await database().db.raw("SELECT pg_terminate_backend(?)", [rows[0].pid]);
    const holder = await waitUntil("a new lock holder", async () => {
      const now = await database().db.raw(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      return now.rows.length === 1 && now.rows[0].pid !== rows[0].pid && now.rows[0].pid;
    });
    expect(holder).not.toBe(rows[0].pid);
    await waitUntil("exactly one leader", async () => leading([a, b]).length === 1);
  });
});

describe("a maintenance chore", () => {
  it("does not overlap itself: a call during a run joins it, the next call after it runs again", async () => {
    let runs = 0;
    let finish!: (n: number) => void;
    const c = chore("test chore", 1_000, () => {
      runs++;
      return new Promise<number>((r) => (finish = r));
    });
    const first = c.runOnce();
    const second = c.runOnce();
    expect(runs).toBe(1);
    finish(7);
    expect(await first).toBe(7);
    expect(await second).toBe(7);
    const third = c.runOnce();
    expect(runs).toBe(2);
    finish(1);
    expect(await third).toBe(1);
  });

  it("on the leader's timer, a tick during a run is skipped: the run's failure is logged once", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    let calls = 0;
    let fail!: (e: Error) => void;
    const slow = chore("slow chore", 10, () => new Promise<number>((_r, reject) => (fail = reject)));
    const counted: Chore = { ...slow, runOnce: () => (calls++, slow.runOnce()) };
    let ticks = 0;
    const clock = chore("clock", 10, async () => (ticks++, 0));
    const m = startMaintenance({
      databaseUrl: database().url,
      log: createLogger("warn", sink),
      chores: [counted, clock],
      electEveryMs: 50,
    });
    try {
      await waitUntil("the slow run started", async () => calls >= 1);
      const from = ticks;
      await waitUntil("ten more ticks of the timers", async () => ticks >= from + 10);
      fail(new Error("lock wait ended by a deadlock"));
      await waitUntil("the failure logged", async () => lines.some((l) => l.includes("slow chore failed")));
      await waitUntil("ten more ticks", async () => ticks >= from + 20);
      expect(lines.filter((l) => l.includes("slow chore failed"))).toHaveLength(1);
      expect(calls).toBe(2); // the run, and the one begun by the first tick after it
    } finally {
      await m.stop();
    }
  });
});
