// Settings → Billing: the account's balance (what it may still spend when prepaid), the price list its messages
// are priced by, and its ledger, newest first (docs/BILLING.md). Read only: the operator sets prices and credits.
import { ok, type Schemas } from "../api.js";
import { Link } from "../router.js";
import { formatMicros } from "../money.js";
import { PagedRows, usePagedList } from "../paging.js";
import { formatTime } from "../time.js";
import { Loading, ProblemMessage, useAsync, useSession } from "../ui.js";

type LedgerEntry = Schemas["LedgerEntry"];

const REASONS: Record<LedgerEntry["reason"], string> = {
  message_charge: "Message charged",
  message_refund: "Message refunded",
  credit: "Credit",
  campaign_reservation: "Campaign reserved",
  campaign_release: "Campaign reservation released",
};

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
          <dl class="facts">
            <dt>Balance</dt>
            <dd data-testid="balance">{formatMicros(b.balance, b.currency)}</dd>
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
      <section class="card" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        <PagedRows list={ledger} noun="entries" one="entry" errorPrefix="Could not load the ledger" empty="No entries yet.">
          {(items) => (
            <table class="table">
              <caption class="sr-only">Every debit and credit of the account, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col" class="number">
                    Amount
                  </th>
                  <th scope="col" class="number">
                    Balance after
                  </th>
                </tr>
              </thead>
              <tbody ref={ledger.rowsRef}>
                {items.map((e) => (
                  <tr key={e.entryId} data-entry-id={e.entryId}>
                    <td data-label="When">{formatTime(e.at)}</td>
                    <td data-label="What">
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
                    </td>
                    <td data-label="Amount" class="number">
                      {formatMicros(e.amount, b?.currency ?? "")}
                    </td>
                    <td data-label="Balance after" class="number">
                      {formatMicros(e.balanceAfter, b?.currency ?? "")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </PagedRows>
      </section>
    </section>
  );
}
