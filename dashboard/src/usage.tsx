// An account's daily quota and what it used today, and the other limits the operator sets, in words.
import type { AccountLimits, AccountUsage } from "./api.js";
import { ok } from "./api.js";
import { useAsync, useSession } from "./ui.js";

export const count = (n: number) => n.toLocaleString();

/** "8,120 of 10,000 segments today", or "no quota". */
export function quotaUsage(limits: AccountLimits, usage: AccountUsage | null): string {
  if (limits.dailySegmentQuota === null) return "no quota";
  return `${count(usage?.segmentsAccepted ?? 0)} of ${count(limits.dailySegmentQuota)} segments today`;
}

/** The account's own use of its quota today ("Today (UTC): 120 of 1,000 segments"); nothing without a quota. */
export function QuotaNote() {
  const { client } = useSession();
  const account = useAsync(() => ok(client.GET("/api/v1/account")), []);
  const quota = account.data?.limits.dailySegmentQuota;
  const usage = account.data?.usage;
  if (!usage || quota === null || quota === undefined) return null;
  const left = quota - usage.segmentsAccepted;
  return (
    <p class="notice notice-info" data-testid="quota-usage">
      Today (UTC): {count(usage.segmentsAccepted)} of {count(quota)} segments
      {left <= 0 ? ": the daily quota is used up; new messages are refused until midnight UTC." : "."}
    </p>
  );
}

const orAll = (list: string[] | null, all: string) => (list ? list.join(", ") : all);

/** The operator's limits of an account, as a description list. */
export function LimitsFacts({ limits, usage }: { limits: AccountLimits; usage: AccountUsage | null }) {
  return (
    <dl class="facts">
      <dt>Daily quota</dt>
      <dd>
        {limits.dailySegmentQuota === null ? "none" : `${count(limits.dailySegmentQuota)} segments a UTC day`}
        {limits.dailySegmentQuota !== null && ` (${quotaUsage(limits, usage)})`}
      </dd>
      <dt>Allowed countries</dt>
      <dd>{orAll(limits.allowedCountries, "every country")}</dd>
      <dt>Sender IDs</dt>
      <dd>{orAll(limits.senderIds, "any")}</dd>
      <dt>Throughput ceiling</dt>
      <dd>{limits.maxSegmentsPerSecond === null ? "none" : `${count(limits.maxSegmentsPerSecond)} segments a second`}</dd>
      <dt>Adds its own numbers</dt>
      <dd>
        {limits.selfServiceNumbers
          ? "yes"
          : "while this deployment sends through the simulator alone (as after a first start); once it reaches a carrier, the operator assigns them"}
      </dd>
      <dt>Weight</dt>
      <dd>{limits.weight}</dd>
    </dl>
  );
}
