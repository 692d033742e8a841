// bench:smpp's and bench:smpp-server's parts of bench/README.md (bench/report.ts calls them): the carrier path
// beside Kannel, and a client application through our SMPP server beside the HTTP path and Kannel.
interface Side {
  messagesPerSecond: number;
  acceptedPerSecond?: number;
  cpuMsPerMessage: number;
  statementsPerMessage?: number;
  rounds: number[];
  rateToKannel?: number;
  cpuToKannel?: number;
  /** Per message (bench/writes.ts), ours only. */
  writes?: {
    walBytes: number;
    rowWrites: number;
    /** Row writes that are not HOT updates (results before issue 60 lack it). */
    nonHotWrites?: number;
    tables: Record<string, { inserts: number; updates: number; hotUpdates: number; deletes: number; writes: number }>;
  };
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

/**
 * Issue 60's targets at one worker, against Kannel in the same run: a campaign at ≥ 2 × Kannel's rate at window
 * 10 and ≥ 1 × at window 100 (or 0.8 of the SMSC's ceiling where Kannel reaches it), CPU ≤ 1.5 × Kannel's; one
 * by one ≥ Kannel's rate at window 10, CPU ≤ 3 ×, POST /messages answered per second ≥ Kannel's sendsms; per
 * message ≤ 6 writes that are not HOT and ≤ 3 KB of WAL (a campaign), ≤ 8 and ≤ 4 KB (one by one).
 */
export function smppTargets(r: SmppResult | undefined): string[][] {
  const rows: string[][] = [];
  for (const c of r?.cases ?? []) {
    if (!c.kannel) continue;
    for (const [name, side] of Object.entries(c.ours).filter(([k]) => k.includes("1 worker"))) {
      const campaign = name.startsWith("campaign");
      const rateGoal = campaign ? (c.window <= 10 ? 2 : 1) : c.window <= 10 ? 1 : undefined;
      if (rateGoal !== undefined)
        rows.push([
          `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: ≥ ${rateGoal} × Kannel's rate`,
          `${side.rateToKannel} (${n(side.messagesPerSecond)}/s)`,
          met(side.messagesPerSecond >= Math.min(rateGoal * c.kannel.messagesPerSecond, 0.8 * c.smscCeiling)),
        ]);
      if (side.acceptedPerSecond !== undefined && c.kannel.acceptedPerSecond !== undefined)
        rows.push([
          `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: POST /messages answered/s ≥ Kannel's sendsms`,
          `${n(side.acceptedPerSecond)} vs ${n(c.kannel.acceptedPerSecond)}`,
          met(side.acceptedPerSecond >= c.kannel.acceptedPerSecond),
        ]);
      if (side.writes) {
        const [rowsBudget, walBudget] = campaign ? [6, 3072] : [8, 4096];
        const nonHot = side.writes.nonHotWrites;
        rows.push([
          `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: ≤ ${rowsBudget} row writes not HOT and ≤ ${walBudget / 1024} KB of WAL per message`,
          `${nonHot ?? "?"} not HOT (${side.writes.rowWrites} rows), ${n(side.writes.walBytes)} B`,
          met(nonHot !== undefined && nonHot <= rowsBudget && side.writes.walBytes <= walBudget),
        ]);
      }
      const cpuGoal = campaign ? 1.5 : 3;
      rows.push([
        `smpp ${name}, ${n(c.messages)} msgs, window ${c.window}: CPU ≤ ${cpuGoal} × Kannel's`,
        `${side.cpuToKannel}×`,
        met((side.cpuToKannel ?? Infinity) <= cpuGoal),
      ]);
    }
  }
  return rows;
}

/**
 * bench:smpp-server's targets (issue 48): the SMPP client's rate at least the HTTP path's, at least Kannel's at
 * window 100, and its CPU per message within 1.2× the HTTP path's.
 */
export function smppServerTargets(r: SmppResult | undefined): string[][] {
  const rows: string[][] = [];
  for (const c of r?.cases ?? []) {
    const client = Object.entries(c.ours).find(([k]) => k.startsWith("smpp-client"))?.[1];
    const http = Object.entries(c.ours).find(([k]) => k.startsWith("one-by-one"))?.[1];
    if (!client || !http) continue;
    const at = `${n(c.messages)} msgs, window ${c.window}`;
    rows.push([
      `smpp-server, ${at}: rate ≥ the HTTP path's`,
      `${n(client.messagesPerSecond)} vs ${n(http.messagesPerSecond)}/s`,
      met(client.messagesPerSecond >= http.messagesPerSecond),
    ]);
    rows.push([
      `smpp-server, ${at}: CPU ≤ 1.2 × the HTTP path's`,
      `${(client.cpuMsPerMessage / http.cpuMsPerMessage).toFixed(2)}× (${client.cpuMsPerMessage} vs ${http.cpuMsPerMessage} ms)`,
      met(client.cpuMsPerMessage <= 1.2 * http.cpuMsPerMessage),
    ]);
    if (c.window === 100 && c.kannel)
      rows.push([
        `smpp-server, ${at}: rate ≥ Kannel's`,
        `${client.rateToKannel} (${n(client.messagesPerSecond)} vs ${n(c.kannel.messagesPerSecond)}/s)`,
        met(client.messagesPerSecond >= c.kannel.messagesPerSecond),
      ]);
  }
  return rows;
}

export function smppSection(r: SmppResult, machineLine: string): string[] {
  return [
    "## smpp (`npm run bench:smpp`)",
    "",
    machineLine,
    "",
    `Messages in over HTTP, out over SMPP to a local SMSC (bench/smsc.ts: answers and receipts every submit at once), every receipt posted back to a local receiver; messages/s from the first request to the last receipt in (each message's two: the submit's answer and the delivery). Ours: one API process and the workers, \`POST /api/v1/messages\` ${r.concurrency} at a time (one-by-one) or one campaign; Kannel${r.kannel ? "" : " (not installed in this run)"}: \`sendsms\` ${r.concurrency} at a time, dlr-mask 9. CPU per message from /proc: ours the API, the workers and PostgreSQL; Kannel bearerbox and smsbox. ${r.rounds} alternating rounds, medians. Every round checked: every message submitted once, every receipt in once, none unmatched.`,
    "",
    ...casesTable(r),
  ];
}

export function smppServerSection(r: SmppResult, machineLine: string): string[] {
  return [
    "## smpp-server (`npm run bench:smpp-server`)",
    "",
    machineLine,
    "",
    `A client application (the \`smpp\` package, bench/smppClientApp.ts) binds as a transceiver to our SMPP server for client applications (its own \`ROLE=smpp\` process) and submits every message with \`registered_delivery\` 1, as many unanswered as the window; timed from the first submit until every message's receipt came back to it as a \`deliver_sm\` (its account has no webhook). Beside it in the same run: the HTTP path (\`POST /api/v1/messages\` ${r.concurrency} at a time, each message's two receipts posted to a webhook) and Kannel${r.kannel ? "" : " (not installed in this run)"} (\`sendsms\` ${r.concurrency} at a time, dlr-mask 9), all to the same local SMSC, one worker, \`SMPP_MAX_IN_FLIGHT\` = the window. CPU per message from /proc: ours the accepting process (the API or the SMPP server), the worker and PostgreSQL. ${r.rounds} round(s). Requests answered/s: for the SMPP client, its \`submit_sm_resp\`.`,
    "",
    ...casesTable(r),
  ];
}

function casesTable(r: SmppResult): string[] {
  const rows = r.cases.flatMap((c) => [
    ...(c.kannel
      ? [
          `| ${n(c.messages)} | ${c.window} | ${n(c.smscCeiling)} | Kannel | ${n(c.kannel.messagesPerSecond)} | ${accepted(c.kannel)} | ${c.kannel.cpuMsPerMessage} ms | | | | | | |`,
        ]
      : []),
    ...Object.entries(c.ours).map(
      ([name, s]) =>
        `| ${n(c.messages)} | ${c.window} | ${n(c.smscCeiling)} | ours, ${name} | ${n(s.messagesPerSecond)} | ${accepted(s)} | ${s.cpuMsPerMessage} ms | ${s.statementsPerMessage ?? ""} | ${s.writes?.rowWrites ?? ""} | ${s.writes?.nonHotWrites ?? ""} | ${s.writes ? n(s.writes.walBytes) : ""} | ${s.rateToKannel ?? ""} | ${s.cpuToKannel ?? ""} |`,
    ),
  ]);
  return [
    "| messages | window | SMSC ceiling/s | side | messages/s | requests answered/s | CPU/message | statements/message | row writes/message | of them not HOT | WAL bytes/message | rate ÷ Kannel | CPU ÷ Kannel |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "Row writes per message by table (`pg_stat_user_tables`: inserts, updates (of them HOT), deletes), each case of the first window:",
    "",
    ...writesByTable(r),
  ];
}

function writesByTable(r: SmppResult): string[] {
  const first = r.cases.filter((c) => c.window === r.cases[0]?.window);
  const sides = first.flatMap((c) =>
    Object.entries(c.ours)
      .filter(([, s]) => s.writes)
      .map(([name, s]) => ({ name: `${name}, ${n(c.messages)}`, w: s.writes! })),
  );
  if (sides.length === 0) return [];
  const tables = [...new Set(sides.flatMap((s) => Object.keys(s.w.tables)))].filter((t) =>
    sides.some((s) => (s.w.tables[t]?.writes ?? 0) >= 0.05),
  );
  const cell = (t: { inserts: number; updates: number; hotUpdates: number; deletes: number } | undefined) =>
    t ? `${t.inserts} / ${t.updates} (${t.hotUpdates}) / ${t.deletes}` : "";
  return [
    `| table | ${sides.map((s) => s.name).join(" | ")} |`,
    `|---|${sides.map(() => "---|").join("")}`,
    ...tables.map((t) => `| ${t} | ${sides.map((s) => cell(s.w.tables[t])).join(" | ")} |`),
    `| **in all** | ${sides.map((s) => `**${s.w.rowWrites} rows, ${n(s.w.walBytes)} B WAL**`).join(" | ")} |`,
    "",
  ];
}
