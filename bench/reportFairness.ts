// The fair-share parts of bench/README.md (bench/report.ts calls them): bench:fairness's section and targets,
// and bench:dispatch's case of many accounts.
type Lateness = { p50Ms: number; p99Ms: number; maxMs: number };
export interface FairnessResult {
  machine: { cores: number; memoryGiB: number; node: string; postgres: string };
  at: string;
  burst: number;
  bMessages: number;
  rounds: number;
  lateness: Record<string, { quiet: Lateness; behindBurst: Lateness; maxRatio: number; goalMet: boolean }>;
  weights3to1: { heavy: number; light: number; heavyShare: number; lightShare: number };
}
export type AccountsCase = Record<string, { messagesPerSecond: number; rounds: number[]; ratioToFirst: number }>;

const n = (x: number) => x.toLocaleString("en");
const met = (ok: boolean) => (ok ? "met" : "**not met**");

export function fairnessTargets(f: FairnessResult | undefined, accounts: AccountsCase | undefined): string[][] {
  const rows: string[][] = [];
  for (const [k, v] of Object.entries(f?.lateness ?? {})) {
    rows.push([
      `fairness: B behind a ${n(f!.burst)}-message burst ≤ 2 × quiet or 1 s (${k.replace("workers", "")} worker${k.endsWith("1") ? "" : "s"})`,
      `${v.behindBurst.maxMs} ms (quiet ${v.quiet.maxMs} ms)`,
      met(v.goalMet),
    ]);
  }
  for (const [k, v] of Object.entries(accounts ?? {}).slice(1)) {
    rows.push([
      `dispatch over ${n(Number(k.replace("accounts", "")))} accounts ≥ 0.9 × one account`,
      `${v.ratioToFirst}`,
      met(v.ratioToFirst >= 0.9),
    ]);
  }
  return rows;
}

export function fairnessSection(f: FairnessResult, machineLine: string): string[] {
  const w = f.weights3to1;
  return [
    "## fairness (`npm run bench:fairness`)",
    "",
    machineLine,
    "",
    `Account B's ${f.bMessages} ordinary messages due at one instant, alone (quiet) and 0.5 s after account A's ${n(f.burst)} \`high\` messages came due; simulator without delay, ${f.rounds} alternating rounds; lateness is \`sentAt\` − \`scheduledAt\` of B's messages over all rounds, the ratio is of the medians of each round's latest.`,
    "",
    "| workers | quiet p50 | p99 | max | behind the burst p50 | p99 | max | ratio |",
    "|---|---|---|---|---|---|---|---|",
    ...Object.entries(f.lateness).map(
      ([k, v]) =>
        `| ${k.replace("workers", "")} | ${v.quiet.p50Ms} ms | ${v.quiet.p99Ms} ms | ${v.quiet.maxMs} ms | ${v.behindBurst.p50Ms} ms | ${v.behindBurst.p99Ms} ms | ${v.behindBurst.maxMs} ms | ${v.maxRatio} |`,
    ),
    "",
    `Weights 3 and 1, ${n(f.burst)} messages each due at one instant, one worker: until the first of them had sent all its messages, the weight-3 account sent ${n(w.heavy)} and the weight-1 account ${n(w.light)}: shares **${w.heavyShare}** and **${w.lightShare}**.`,
    "",
  ];
}

export function accountsLines(accounts: AccountsCase | undefined): string[] {
  if (!accounts || Object.keys(accounts).length === 0) return [];
  return [
    "The same messages spread evenly over many accounts (each has due sends), one worker, no webhook, alternating rounds (medians): the fair claim's cost per account.",
    "",
    "| accounts | messages/s to delivered | rounds | ratio to one account |",
    "|---|---|---|---|",
    ...Object.entries(accounts).map(
      ([k, v]) =>
        `| ${n(Number(k.replace("accounts", "")))} | ${n(v.messagesPerSecond)} | ${v.rounds.map(n).join(", ")} | ${v.ratioToFirst} |`,
    ),
    "",
  ];
}
