// Settings → Billing: the account's balance (what it may still spend when prepaid), the price list its messages
// are priced by, its spend of the last 30 days by day, and its ledger, newest first (docs/BILLING.md). Read only: the operator sets prices and credits.
import { ok, type Schemas } from "../api.js";
import { Link } from "../router.js";
import { formatMicros } from "../money.js";
import { PagedRows, usePagedList } from "../paging.js";
import { formatTime } from "../time.js";
import { ListTable } from "../listTable.js";
import { Loading, ProblemMessage, useAsync, useSession } from "../ui.js";

type LedgerEntry = Schemas["LedgerEntry"];

const REASONS: Record<LedgerEntry["reason"], string> = {
  message_charge: "Message charged",
  message_refund: "Message refunded",
  credit: "Credit",
  campaign_reservation: "Campaign reserved",
  campaign_release: "Campaign reservation released",
};

const DAY_MS = 86_400_000;

/** What was charged for good on each of the last 30 days (the reports' `spend`, docs/BILLING.md, "Spend"). */
function Spend({ currency }: { currency: string }) {
  const { client } = useSession();
  const report = useAsync(async () => {
    const until = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS + DAY_MS);
    const since = new Date(until.getTime() - 31 * DAY_MS);
    const body = await ok(
      client.GET("/api/v1/reports/messages", {
        params: { query: { since: since.toISOString(), until: until.toISOString(), groupBy: ["day"] } },
      }),
    );
    return body.rows.filter((r) => r.spend !== 0).reverse();
  }, []);
  const rows = report.data;
  const total = rows?.reduce((sum, r) => sum + r.spend, 0) ?? 0;
  return (
    <section class="card" aria-labelledby="spend-title">
      <h2 id="spend-title">Spend, last 30 days</h2>
      <p class="muted">Charged for good: messages sent (or delivered, when only delivered messages are charged). Refunds never count.</p>
      <ProblemMessage error={report.error} prefix="Could not load the spend" />
      {!rows && report.loading && <Loading what="the spend" />}
      {rows?.length === 0 && <p class="muted">Nothing charged in the last 30 days.</p>}
      {rows && rows.length > 0 && (
        <table class="table">
          <caption class="sr-only">Spend by day, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" class="number">
                Spend
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={String(r.day)}>
                <td data-label="Day">{r.day}</td>
                <td data-label="Spend" class="number">
                  {formatMicros(r.spend, currency)}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">In all</th>
              <td class="number" data-testid="spend-total">
                {formatMicros(total, currency)}
              </td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}

export function Billing() {
  const { client } = useSession();
  const balance = useAsync(async () => ok(client.GET("/api/v1/account/balance")), []);
  const ledger = usePagedList<LedgerEntry>(async (page) => ok(client.GET("/api/v1/account/ledger", { params: { query: page } })), [], 50);
  const b = balance.data;
  return (
    <section>
      <h1 tabIndex={-1}>Settings → Billing</h1>
      <p class="muted">
        Each message is charged its price when it is accepted, and refunded if it never reaches a carrier. Prices and top-ups are the
        operator&apos;s.
      </p>
      {balance.loading && !b && <Loading what="the balance" />}
      <ProblemMessage error={balance.error} prefix="Could not load the balance" />
      {b && (
        <section class="card" aria-labelledby="balance-title">
          <h2 id="balance-title">Balance</h2>
          <p data-testid="balance">
            <strong>{formatMicros(b.balance, b.currency)}</strong>
          </p>
          <dl class="facts">
            <dt>Billing</dt>
            <dd>
              {b.billing === "prepaid"
                ? `Prepaid: messages it cannot pay are refused${b.creditLimit > 0 ? `, down to ${formatMicros(-b.creditLimit, b.currency)}` : ""}`
                : "Postpaid: invoiced by the operator"}
            </dd>
            {b.available !== null && (
              <>
                <dt>Available</dt>
                <dd data-testid="available">{formatMicros(b.available, b.currency)}</dd>
              </>
            )}
            <dt>Price list</dt>
            <dd>{b.priceList ?? <span class="muted">none: messages are not priced</span>}</dd>
            <dt>Charged</dt>
            <dd>{b.chargeOn === "delivered" ? "only for delivered messages" : "once a carrier accepts the message"}</dd>
          </dl>
        </section>
      )}
      {b && <Spend currency={b.currency} />}
      <section class="card" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        <PagedRows list={ledger} noun="entries" one="entry" errorPrefix="Could not load the ledger" empty="No entries yet.">
          {(items) => (
            <ListTable
              caption="Every debit and credit of the account, newest first"
              rows={items}
              bodyRef={ledger.rowsRef}
              rowKey={(e) => e.entryId}
              rowAttributes={(e) => ({ "data-entry-id": e.entryId })}
              columns={[
                { label: "When", cell: (e) => formatTime(e.at) },
                {
                  label: "What",
                  cell: (e) => (
                    <>
                      {REASONS[e.reason]}
                      {e.messageId && (
                        <>
                          {" "}
                          <Link to={`/messages/${e.messageId}`}>message</Link>
                        </>
                      )}
                      {e.campaignId && !e.messageId && (
                        <>
                          {" "}
                          <Link to={`/campaigns/${e.campaignId}`}>campaign</Link>
                        </>
                      )}
                      {e.note && <span class="muted"> ({e.note})</span>}
                    </>
                  ),
                },
                { label: "Amount", numeric: true, cell: (e) => formatMicros(e.amount, b?.currency ?? "") },
                { label: "Balance after", numeric: true, cell: (e) => formatMicros(e.balanceAfter, b?.currency ?? "") },
              ]}
            />
          )}
        </PagedRows>
      </section>
    </section>
  );
}
