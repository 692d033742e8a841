// The first page: how the account's (or, for the operator, the service's) messages went over the last days,
// from GET /api/v1/reports/messages — volume and delivery rate by day, what became of them, error codes,
// countries, time to delivered, and the quota (docs/REPORTS.md). Every chart has its table.
import { useState } from "preact/hooks";
import { Link } from "../router.js";
import { ok, type Schemas } from "../api.js";
import { ChartFigure } from "../charts.js";
import { count, QuotaNote } from "../usage.js";
import { Loading, ProblemMessage, usePolling, useAsync, useSession } from "../ui.js";
import { SelectField } from "../forms.js";

type Row = Schemas["ReportRow"];
type Key = Schemas["ReportGroupKey"];

const percent = (v: number) => `${v.toFixed(1)} %`;
const rateOf = (r: Row) => (r.deliveryRate === null ? null : r.deliveryRate * 100);
const top = (rows: Row[], by: (r: Row) => number, n = 10) =>
  [...rows]
    .sort((a, b) => by(b) - by(a))
    .slice(0, n)
    .filter((r) => by(r) > 0);

const EVENTS: [keyof Row, string][] = [
  ["accepted", "Accepted"],
  ["sent", "Sent"],
  ["delivered", "Delivered"],
  ["undelivered", "Undelivered"],
  ["failed", "Failed"],
  ["optedOut", "Not sent: opted out"],
  ["cancelled", "Cancelled"],
  ["received", "Received"],
];

export function Overview() {
  const { client, key } = useSession();
  const operator = key.kind === "operator";
  const [days, setDays] = useState(7);
  /** People who opted out by keyword (STOP…) since then: the list, newest first, read back to `since` (1,000 at most). */
  const keywordOptOutsSince = async (since: string): Promise<{ count: number; more: boolean }> => {
    let count = 0;
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const { data, nextCursor } = await ok(
        client.GET("/api/v1/opt-outs", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }),
      );
      const inPeriod = data.filter((o) => o.createdAt >= since);
      count += inPeriod.filter((o) => o.source === "keyword").length;
      if (inPeriod.length < data.length || !nextCursor) return { count, more: false };
      cursor = nextCursor;
    }
    return { count, more: true };
  };
  const report = useAsync(async () => {
    const since = new Date(Date.now() - days * 86_400_000).toISOString();
    const get = async (groupBy: Key[]) =>
      (await ok(client.GET("/api/v1/reports/messages", { params: { query: { since, ...(groupBy.length ? { groupBy } : {}) } } }))).rows;
    const [total, byDay, byError, byCountry, bySplit] = await Promise.all([
      get([]),
      get(["day"]),
      get(["errorCode"]),
      get(["country"]),
      get([operator ? "account" : "category"]),
    ]);
    const connectors = operator ? await get(["connector"]) : [];
    const optOutsReceived = operator ? undefined : await keywordOptOutsSince(since);
    // The ten largest of each breakdown, picked once for the chart and its table.
    return {
      total: total[0]!,
      optOutsReceived,
      byDay,
      bySplit,
      errors: top(
        byError.filter((e) => e.errorCode),
        (e) => e.failed + e.undelivered,
      ),
      countries: top(byCountry, (c) => c.accepted + c.received),
      accounts: top(bySplit, (a) => a.sent),
      connectors: top(
        connectors.filter((c) => c.connectorId),
        (c) => c.sent,
      ),
    };
  }, [days, operator]);
  // Live: the counts move as messages do.
  usePolling(() => report.reload(), 15_000, true);
  const names = useAsync(async () => {
    if (!operator) return { accounts: new Map<string, string>(), connectors: new Map<string, string>() };
    const [accounts, connectors] = await Promise.all([
      ok(client.GET("/api/v1/accounts", { params: { query: { limit: 100 } } })),
      ok(client.GET("/api/v1/connectors")),
    ]);
    return {
      accounts: new Map(accounts.data.map((a) => [a.accountId, a.name])),
      connectors: new Map(connectors.data.map((c) => [c.connectorId, c.name])),
    };
  }, [operator]);
  // A new account (no message yet, either way) sees its first steps instead of empty charts, until its first message.
  const firstRun = useAsync(async () => {
    if (operator) return false;
    return (await ok(client.GET("/api/v1/messages", { params: { query: { limit: 1 } } }))).data.length === 0;
  }, [operator]);
  usePolling(() => firstRun.reload(), 15_000, firstRun.data === true);
  const r = firstRun.data === false ? report.data : undefined;
  return (
    <section>
      <h1 tabIndex={-1}>Overview</h1>
      {firstRun.data === true && <FirstSteps />}
      <p class="muted">
        {operator ? "Every account's messages" : "Your messages"} over the last {days} days, counted as they happen (times in{" "}
        {operator ? "UTC" : "your account's time zone"}).
      </p>
      <div class="toolbar">
        <SelectField id="overview-days" label="Period" value={String(days)} onValue={(chosen) => setDays(Number(chosen))}>
          <option value="1">Last 24 hours</option>
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
        </SelectField>
      </div>
      {!operator && <QuotaNote />}
      <ProblemMessage error={report.error} prefix="Could not load the report" />
      {!r && report.loading && <Loading what="the report" />}
      {r && (
        <>
          <dl class="facts totals" data-testid="overview-totals">
            {EVENTS.map(([k, label]) => (
              <div key={k}>
                <dt>{label}</dt>
                <dd>{count(r.total[k] as number)}</dd>
              </div>
            ))}
            {r.optOutsReceived && (
              <div>
                <dt>Opt-outs received</dt>
                <dd title="People who texted STOP (or another opt-out keyword) in the period">
                  {count(r.optOutsReceived.count)}
                  {r.optOutsReceived.more ? "+" : ""}
                </dd>
              </div>
            )}
            <div>
              <dt>Delivery rate</dt>
              <dd>{r.total.deliveryRate === null ? "–" : percent(r.total.deliveryRate * 100)}</dd>
            </div>
            <div>
              <dt>Time to delivered (median / 95 %)</dt>
              <dd>{r.total.timeToDeliveredP50 === null ? "–" : `${r.total.timeToDeliveredP50} s / ${r.total.timeToDeliveredP95} s`}</dd>
            </div>
          </dl>
          <div class="charts">
            <ChartFigure
              id="volume"
              caption="Messages and delivery rate by day"
              labelHeading="Day"
              summary={`Sent and delivered messages per day for ${r.byDay.length} days, with the delivery rate.`}
              labels={r.byDay.map((d) => d.day ?? "")}
              series={[
                { label: "Sent", kind: "line", values: r.byDay.map((d) => d.sent) },
                { label: "Delivered", kind: "line", values: r.byDay.map((d) => d.delivered) },
                { label: "Delivery rate (%)", kind: "line", dashed: true, right: true, values: r.byDay.map(rateOf), format: percent },
              ]}
            />
            <ChartFigure
              id="outcomes"
              caption="What became of them"
              labelHeading="Status"
              horizontal
              summary={EVENTS.map(([k, label]) => `${label} ${r.total[k] as number}`).join(", ")}
              labels={EVENTS.map(([, label]) => label)}
              series={[{ label: "Messages", kind: "bar", values: EVENTS.map(([k]) => r.total[k] as number) }]}
            />
            <ChartFigure
              id="errors"
              caption="Error codes"
              labelHeading="Error code"
              horizontal
              summary={`The ${r.errors.length} most frequent error codes of failed and undelivered messages.`}
              labels={r.errors.map((e) => e.errorCode!)}
              series={[{ label: "Failed or undelivered", kind: "bar", values: r.errors.map((e) => e.failed + e.undelivered) }]}
            />
            <ChartFigure
              id="countries"
              caption="Countries"
              labelHeading="Country"
              horizontal
              summary="The ten countries most messages went to or came from."
              labels={r.countries.map((c) => c.country ?? "unknown")}
              series={[
                { label: "Accepted", kind: "bar", values: r.countries.map((c) => c.accepted) },
                { label: "Received", kind: "bar", values: r.countries.map((c) => c.received) },
              ]}
            />
            <ChartFigure
              id="time-to-delivered"
              caption="Time to delivered by day (seconds)"
              labelHeading="Day"
              summary="The median and 95th percentile of the time from a message's due time to its delivery, per day."
              fractional
              labels={r.byDay.map((d) => d.day ?? "")}
              series={[
                { label: "Median", kind: "line", values: r.byDay.map((d) => d.timeToDeliveredP50) },
                { label: "95th percentile", kind: "line", dashed: true, values: r.byDay.map((d) => d.timeToDeliveredP95) },
              ]}
            />
            {operator ? (
              <>
                <ChartFigure
                  id="accounts"
                  caption="Accounts"
                  labelHeading="Account"
                  horizontal
                  summary="Messages sent by the ten busiest accounts, with how many were delivered."
                  labels={r.accounts.map((a) => names.data?.accounts.get(a.accountId!) ?? a.accountId!)}
                  series={[
                    { label: "Sent", kind: "bar", values: r.accounts.map((a) => a.sent) },
                    { label: "Delivered", kind: "bar", values: r.accounts.map((a) => a.delivered) },
                  ]}
                />
                <ChartFigure
                  id="connectors"
                  caption="Connectors"
                  labelHeading="Connector"
                  horizontal
                  summary="Messages sent through each connector, with how many were delivered."
                  labels={r.connectors.map((c) => names.data?.connectors.get(c.connectorId!) ?? c.connectorId!)}
                  series={[
                    { label: "Sent", kind: "bar", values: r.connectors.map((c) => c.sent) },
                    { label: "Delivered", kind: "bar", values: r.connectors.map((c) => c.delivered) },
                  ]}
                />
              </>
            ) : (
              <ChartFigure
                id="categories"
                caption="Categories"
                labelHeading="Category"
                horizontal
                summary="Transactional and marketing messages accepted."
                labels={r.bySplit.filter((c) => c.category).map((c) => c.category!)}
                series={[{ label: "Accepted", kind: "bar", values: r.bySplit.filter((c) => c.category).map((c) => c.accepted) }]}
              />
            )}
          </div>
        </>
      )}
    </section>
  );
}

/** What a new account does first: a key for its program, a first message, the reference. */
function FirstSteps() {
  const { canWrite, canSend } = useSession();
  const curl = [
    `curl -s -X POST "${location.origin}/api/v1/messages" \\`,
    `  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\`,
    `  -d '{"to":"+14155550123","from":"ACME","body":"Hello from SMS Platform"}'`,
  ].join("\n");
  return (
    <section class="card first-steps" aria-labelledby="first-steps-title">
      <h2 id="first-steps-title">First steps</h2>
      <p>No message yet. Three steps to the first one; the charts appear here once messages flow.</p>
      <ol>
        <li>
          <strong>An API key for your program.</strong>{" "}
          {canWrite ? <Link to="/settings/keys">Make one under Settings → API keys</Link> : "Ask someone with a full role to make one."} It
          is shown once: keep it where your program reads it, as <code>KEY</code> below.
        </li>
        <li>
          <strong>Send a message</strong> from your program, or from this terminal:
          <pre class="code" tabIndex={0} aria-label="A curl command that sends a message">
            <code>{curl}</code>
          </pre>
          {canSend && (
            <>
              Or write one yourself: <Link to="/messages">Messages → New message</Link>.
            </>
          )}
        </li>
        <li>
          <strong>Get its receipts:</strong> <Link to="/settings/webhooks">add a webhook</Link>, and read the{" "}
          <a href="/docs">API reference</a> (every operation with a curl and a TypeScript sample).
        </li>
      </ol>
    </section>
  );
}
