// bench:smpp's part of bench/README.md (bench/report.ts calls it): the carrier path beside Kannel.
interface Side {
  messagesPerSecond: number;
  acceptedPerSecond?: number;
  cpuMsPerMessage: number;
  statementsPerMessage?: number;
  rounds: number[];
  rateToKannel?: number;
  cpuToKannel?: number;
}
export interface SmppResult {
  machine: { cores: number; memoryGiB: number; node: string; postgres: string };
  at: string;
  rounds: number;
  concurrency: number;
  kannel: boolean;
  cases: { messages: number; window: number; smscCeiling: number; kannel?: Side; ours: Record<string, Side> }[];
}

const n = (x: number) => x.toLocaleString("en");
const met = (ok: boolean) => (ok ? "met" : "**not met**");
const accepted = (s: Side) => (s.acceptedPerSecond === undefined ? "" : n(s.acceptedPerSecond));

/** The targets at one worker: 2 × Kannel's rate (or 0.8 of the SMSC's ceiling where Kannel reaches it), CPU ≤ Kannel's. */
export function smppTargets(r: SmppResult | undefined): string[][] {
  const rows: string[][] = [];
  for (const c of r?.cases ?? []) {
    if (!c.kannel) continue;
    for (const [name, side] of Object.entries(c.ours).filter(([k]) => k.includes("1 worker"))) {
      const goal = Math.min(2 * c.kannel.messagesPerSecond, 0.8 * c.smscCeiling);
      rows.push([
        `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: ≥ 2 × Kannel's rate`,
        `${side.rateToKannel} (${n(side.messagesPerSecond)}/s)`,
        met(side.messagesPerSecond >= goal),
      ]);
      if (side.acceptedPerSecond !== undefined && c.kannel.acceptedPerSecond !== undefined)
        rows.push([
          `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: POST /messages answered/s ≥ Kannel's sendsms`,
          `${n(side.acceptedPerSecond)} vs ${n(c.kannel.acceptedPerSecond)}`,
          met(side.acceptedPerSecond >= c.kannel.acceptedPerSecond),
        ]);
      rows.push([
        `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: CPU ≤ Kannel's`,
        `${side.cpuToKannel}×`,
        met((side.cpuToKannel ?? Infinity) <= 1),
      ]);
    }
  }
  return rows;
}

export function smppSection(r: SmppResult, machineLine: string): string[] {
  const rows = r.cases.flatMap((c) => [
    ...(c.kannel
      ? [
          `| ${n(c.messages)} | ${c.window} | ${n(c.smscCeiling)} | Kannel | ${n(c.kannel.messagesPerSecond)} | ${c.kannel.cpuMsPerMessage} ms | | | |`,
        ]
      : []),
    ...Object.entries(c.ours).map(
      ([name, s]) =>
        `| ${n(c.messages)} | ${c.window} | ${n(c.smscCeiling)} | ours, ${name} | ${n(s.messagesPerSecond)} | ${accepted(s)} | ${s.cpuMsPerMessage} ms | ${s.statementsPerMessage ?? ""} | ${s.rateToKannel ?? ""} | ${s.cpuToKannel ?? ""} |`,
    ),
  ]);
  return [
    "## smpp (`npm run bench:smpp`)",
    "",
    machineLine,
    "",
    `Messages in over HTTP, out over SMPP to a local SMSC (bench/smsc.ts: answers and receipts every submit at once), every receipt posted back to a local receiver; messages/s from the first request to the last receipt in (each message's two: the submit's answer and the delivery). Ours: one API process and the workers, \`POST /api/v1/messages\` ${r.concurrency} at a time (one-by-one) or one campaign; Kannel${r.kannel ? "" : " (not installed in this run)"}: \`sendsms\` ${r.concurrency} at a time, dlr-mask 9. CPU per message from /proc: ours the API, the workers and PostgreSQL; Kannel bearerbox and smsbox. ${r.rounds} alternating rounds, medians. Every round checked: every message submitted once, every receipt in once, none unmatched.`,
    "",
    "| messages | window | SMSC ceiling/s | side | messages/s | requests answered/s | CPU/message | statements/message | rate ÷ Kannel | CPU ÷ Kannel |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ];
}
