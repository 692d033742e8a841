// npm run bench:failover — the seconds without sends when the primary PostgreSQL dies, and the send rate before
// and after: the failover run of the HA chaos test (test/helpers/failoverRun.ts: a pg_auto_failover formation
// from ops/ha/formation.sh with the monitor's fast settings, an API and two workers, Net::SMPP's SMSC as the
// carrier, a 2,000-recipient campaign and POST /messages at 50/s, the primary SIGKILLed once a quarter of the
// campaign is at the carrier). Needs pg_autoctl (Debian: pg-auto-failover-cli, postgresql-15-auto-failover).
import { cpus, totalmem } from "node:os";
import { runFailover } from "../test/helpers/failoverRun.js";
import { formationAvailable } from "../test/helpers/haFormation.js";
import { writeResult } from "./lib.js";

if (!formationAvailable("bench:failover")) process.exit(process.env.CI === "true" ? 1 : 0);
const r = await runFailover((line) => process.stderr.write(`bench:failover: ${line}\n`));
const twice = [...r.carrierSubmits.values()].filter((n) => n > 1).length;
writeResult("failover", {
  machine: { cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, postgres: r.serverVersion },
  messages: r.ids.length,
  secondsUntilPromoted: +(r.promotedAfterMs / 1000).toFixed(1),
  secondsWithoutSends: +(r.resumedAfterMs / 1000).toFixed(1),
  secondsFromPromotionToSends: +((r.resumedAfterMs - r.promotedAfterMs) / 1000).toFixed(2),
  submitsPerSecond: { before: Math.round(r.rateBefore), after: Math.round(r.rateAfter) },
  postAnswers: Object.fromEntries(r.statuses),
  unsettled: r.unsettled,
  sentTwice: twice,
  receiptsMissing: r.receiptsMissing.length,
});
