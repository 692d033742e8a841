// Chaos, for real: the pg_auto_failover formation of ops/ha/formation.sh (a monitor, two nodes, synchronous
// replication), an API and two workers on its DATABASE_URL, Net::SMPP's SMSC as the carrier, a 2,000-recipient
// campaign and POST /messages at 50/s; the primary's PostgreSQL and its keeper SIGKILLed mid-run
// (test/helpers/failoverRun.ts, shared with bench:failover). Every accepted message ends final, none reaches the
// carrier twice (by its own log), every receipt is posted, the API answers nothing 5xx but 503 with Retry-After,
// and sends resume within 30 s of the promotion.
import { describe, expect, it } from "vitest";
import { formationAvailable } from "../helpers/haFormation.js";
import { runFailover } from "../helpers/failoverRun.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";

const available =
  formationAvailable("the high-availability chaos test") &&
  systemPackagePresent({
    neededBy: "the high-availability chaos test",
    file: "/usr/share/perl5/Net/SMPP.pm",
    debianPackage: "libnet-smpp-perl",
  });

describe.runIf(available)("the primary PostgreSQL killed mid-campaign (pg_auto_failover)", { timeout: 420_000 }, () => {
  it("loses nothing, doubles nothing, answers 503 meanwhile, and sends again within 30 s of the promotion", async () => {
    const r = await runFailover((line) => process.stderr.write(`ha-failover: ${line}\n`));
    const context = () => `statuses ${JSON.stringify(r.finalStatuses)}\n${r.outputs()}`;
    expect(r.unsettled, context()).toBe(0);
    // Final: delivered or undelivered by the carrier's receipt; nothing failed for an outcome never learnt.
    expect(
      Object.keys(r.finalStatuses).filter((s) => s !== "delivered" && s !== "undelivered"),
      context(),
    ).toEqual([]);
    expect([...r.carrierSubmits].filter(([, n]) => n > 1)).toEqual([]);
    expect(r.destinations.filter((to) => !r.carrierSubmits.has(to))).toEqual([]);
    expect(r.receiptsMissing).toEqual([]);
    expect(
      [...r.statuses.keys()].filter((s) => s !== 201 && s !== 503),
      `${[...r.noAnswer].join("; ")}\n${r.apiErrors.filter((l) => /"responseTime":\d{5}|aborted|"statusCode":500/.test(l)).join("\n")}`,
    ).toEqual([]);
    expect(r.retryAfterMissing).toBe(0);
    expect(r.postsAbandoned).toBe(0);
    expect(r.resumedAfterMs - r.promotedAfterMs).toBeLessThanOrEqual(30_000);
    process.stderr.write(
      `ha-failover: ${r.ids.length} messages; promoted ${r.promotedAfterMs} ms after the kill, sends resumed ${r.resumedAfterMs} ms after it; ` +
        `${r.rateBefore}/s before, ${r.rateAfter}/s after; POST answers ${JSON.stringify(Object.fromEntries(r.statuses))}; ` +
        `${r.receiptsStored} receipts\n`,
    );
  });
});
