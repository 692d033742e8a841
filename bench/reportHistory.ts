// The bench:history part of bench/README.md (bench/report.ts calls it): the target row and the section.
type Load = { rps: number; p50: number; p99: number; non2xx: number };
type Latency = { p50: number; p99: number } | null;
interface Side {
  scheduleApi: Load;
  scheduleAll: Load;
  reads: Record<string, Latency>;
  claim: { messagesPerSecond: number; seconds: number; walBytesPerMessage: number };
  retention: Load & { deleted: number; retentionSeconds: number };
}
export interface HistoryResult {
  machine: { cores: number; memoryGiB: number; node: string; postgres: string };
  at: string;
  messages: number;
  /** Messages of the "empty" side's small history (absent in runs before it had one). */
  emptyMessages?: number;
  accounts: number;
  days: number;
  seconds: number;
  rounds: number;
  due: number;
  buildSeconds: number;
  storage: { bytes: Record<string, number>; bytesPerMessage: number };
  full: Side;
  empty: Side;
  ratios: Record<string, number>;
  worstRatio: number;
}

const n = (x: number) => x.toLocaleString("en");
const AT_SIZE = 5_000_000;

export function historyTarget(h: HistoryResult): string[] {
  const scaled = h.messages >= AT_SIZE;
  return [
    `history: every ratio full/empty ≤ 1.3${scaled ? "" : ` (run with ${n(h.messages)} messages)`}`,
    `worst ${h.worstRatio}`,
    h.worstRatio <= 1.3 ? (scaled ? "met" : "met below size") : "**not met**",
  ];
}

const READS: [string, string][] = [
  ["firstPage", "GET /messages, first page (big account)"],
  ["page200", "GET /messages, page 200 of the cursor chain"],
  ["statusScheduled", "GET /messages?status=scheduled"],
  ["statusFailed", "GET /messages?status=failed"],
  ["campaign", "GET /messages?campaignId=…"],
  ["deliveriesFailed", "GET /webhooks/{id}/deliveries?status=failed"],
  ["getById", "GET /messages/{id}"],
];

export function historySection(h: HistoryResult, machineLine: string): string[] {
  const { full: f, empty: e, ratios: r } = h;
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  const perDayGB = (h.storage.bytesPerMessage * 1_000_000) / 1e9;
  const perMessage = (table: string) => (h.storage.bytes[table] ?? 0) / h.messages;
  const steadyGB =
    (1_000_000 * ((perMessage("messages") + perMessage("message_status_history")) * 400 + perMessage("webhook_deliveries") * 30)) / 1e9;
  const load = (name: string, a: Load, b: Load, rate: string, p99: string) =>
    `| ${name} | ${n(a.rps)} req/s, p99 ${a.p99} ms | ${n(b.rps)} req/s, p99 ${b.p99} ms | ${r[rate]} / ${r[p99]} |`;
  return [
    "## history (`npm run bench:history`)",
    "",
    machineLine,
    "",
    `Two PostgreSQL clusters side by side, same settings: one holding ${n(h.messages)} messages of ${h.accounts} accounts (one with a fifth of them) over ${h.days} days, each with ${h.storage.bytes.message_status_history ? "two history entries and " : ""}two receipt deliveries to one webhook (built in SQL in ${h.buildSeconds} s), one ${h.emptyMessages ? `all but empty: ${n(h.emptyMessages)} messages built the same way, so that its lists return full pages as the full side's do` : "empty"}. Schedule loads: autocannon, 32 connections, ${h.seconds} s × ${h.rounds} alternating rounds, medians. Reads: 200 sequential requests on each side, alternating full and empty request by request (page 200: the empty side has fewer pages and reads its last). The claim and the retention run go one side after the other. Ratio: full/empty for latencies, empty/full for rates (≤ 1.3 is the target for every one).`,
    "",
    "| | full | empty | ratio |",
    "|---|---|---|---|",
    load("POST /scheduler/schedule, API alone", f.scheduleApi, e.scheduleApi, "scheduleApiRate", "scheduleApiP99"),
    load("POST /scheduler/schedule, API + worker", f.scheduleAll, e.scheduleAll, "scheduleAllRate", "scheduleAllP99"),
    ...READS.filter(([k]) => f.reads[k] && e.reads[k]).map(
      ([k, label]) =>
        `| ${label} | p50 ${f.reads[k]!.p50} ms, p99 ${f.reads[k]!.p99} ms | p50 ${e.reads[k]!.p50} ms, p99 ${e.reads[k]!.p99} ms | ${r[`${k}P50`]} |`,
    ),
    `| ${n(h.due)} due messages to delivered with receipts (1 worker) | ${n(f.claim.messagesPerSecond)} msg/s | ${n(e.claim.messagesPerSecond)} msg/s | ${r.claimRate} |`,
    `| WAL written per message of that claim | ${n(f.claim.walBytesPerMessage)} B | ${n(e.claim.walBytesPerMessage)} B | ${r.claimWal} |`,
    `| schedule while retention deletes the oldest day (${n(f.retention.deleted)} messages with their rows, during the load) | ${n(f.retention.rps)} req/s, p99 ${f.retention.p99} ms | ${n(e.retention.rps)} req/s, p99 ${e.retention.p99} ms | ${r.retentionP99} |`,
    "",
    `Storage per message, indexes included: **${n(h.storage.bytesPerMessage)} bytes** (messages ${mib(h.storage.bytes.messages ?? 0)}${h.storage.bytes.message_status_history ? `, history ${mib(h.storage.bytes.message_status_history)}` : ""}, deliveries ${mib(h.storage.bytes.webhook_deliveries ?? 0)}). At 1 million messages a day that is ${perDayGB.toFixed(1)} GB a day, ${(perDayGB * 365).toFixed(0)} GB a year kept for ever; with the default retention (messages and history 400 days, the delivery log 30) it levels off at about ${steadyGB.toFixed(0)} GB.`,
    "",
  ];
}
