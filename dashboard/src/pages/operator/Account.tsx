// Operator → one account: its state and today's use of its quota, its guards and limits (editable), its
// billing (balance, settings, credits), its people (the first owner invited), its keys and its numbers.
import { ok } from "../../api.js";
import { Link } from "../../router.js";
import { formatTime } from "../../time.js";
import { Loading, ProblemMessage, useAsync, useSession } from "../../ui.js";
import { quotaUsage } from "../../usage.js";
import { AccountBilling } from "./accountBilling.js";
import { AccountKeys } from "./accountKeys.js";
import { AccountNumbers } from "./accountNumbers.js";
import { AccountPeople } from "./accountPeople.js";
import { AccountSmpp } from "./accountSmpp.js";
import { LimitsForm } from "./limitsForm.js";
import { Identifier } from "../../identifier.js";

export function OperatorAccount({ accountId }: { accountId: string }) {
  const { client, canWrite } = useSession();
  const account = useAsync(() => ok(client.GET("/api/v1/accounts/{accountId}", { params: { path: { accountId } } })), [accountId]);
  const a = account.data;
  return (
    <section>
      <p>
        <Link to="/operator/accounts">← Accounts</Link>
      </p>
      <h1 tabIndex={-1}>{a ? `Account “${a.name}”` : "Account"}</h1>
      <ProblemMessage error={account.error} prefix="Could not load the account" />
      {!a && account.loading && <Loading what="the account" />}
      {a && (
        <>
          <section class="card" aria-labelledby="account-facts-title">
            <h2 id="account-facts-title">Overview</h2>
            <dl class="facts">
              <dt>Id</dt>
              <dd>
                <Identifier id={a.accountId} label="account id" full />
              </dd>
              <dt>Created</dt>
              <dd>{formatTime(a.createdAt)}</dd>
              <dt>State</dt>
              <dd data-testid="account-state">{a.suspended ? "Suspended: its keys are refused and its messages wait." : "Active"}</dd>
              <dt>Quota use</dt>
              <dd data-testid="account-usage">{quotaUsage(a.limits, a.usage)}</dd>
            </dl>
            <p>
              <Link to={`/operator/audit-log?accountId=${a.accountId}`}>Audit log of this account</Link>
            </p>
          </section>
          <LimitsForm key={a.accountId} account={a} onSaved={account.setData} />
          <AccountBilling key={`billing-${a.accountId}`} account={a} onSaved={account.setData} />
          {canWrite && <AccountPeople accountId={a.accountId} />}
          <AccountKeys accountId={a.accountId} />
          <AccountNumbers accountId={a.accountId} />
          <AccountSmpp accountId={a.accountId} />
        </>
      )}
    </section>
  );
}
