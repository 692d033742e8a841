// Operator → Accounts: every account of the service with its state and today's use of its quota, making one,
// and who holds a number.
import { useState } from "preact/hooks";
import { ok, type OperatorAccount } from "../../api.js";
import { PagedRows, usePagedList, RefreshButton } from "../../paging.js";
import { Link, navigate } from "../../router.js";
import { formatMicros } from "../../money.js";
import { formatTime } from "../../time.js";
import { ListTable } from "../../listTable.js";
import { bound, InputField, SubmitRow } from "../../forms.js";
import { FormPanel, FormToggle, TitledForm, useAction, useSession } from "../../ui.js";
import { quotaUsage } from "../../usage.js";
import { NumberHolder } from "./holder.js";

export const accountPath = (accountId: string) => `/operator/accounts/${accountId}`;

export function Accounts() {
  const { client, canWrite } = useSession();
  const [name, setName] = useState("");
  const [creating, setCreating] = useState(false);
  const list = usePagedList<OperatorAccount>(async (page) => ok(client.GET("/api/v1/accounts", { params: { query: page } })), [], 50);
  const create = useAction(async () => {
    const created = await ok(client.POST("/api/v1/accounts", { body: { name: name.trim() } }));
    navigate(accountPath(created.accountId));
  });
  return (
    <section>
      <h1 tabIndex={-1}>Accounts</h1>
      <p class="muted">
        The service's accounts. Open one to suspend it, set its limits (daily quota, countries, sender IDs, throughput), and manage its keys
        and numbers.
      </p>
      {canWrite && (
        <div class="toolbar">
          <FormToggle label="New account" panelId="new-account-panel" open={creating} onToggle={setCreating} />
        </div>
      )}
      <FormPanel id="new-account-panel" open={creating}>
        <TitledForm titleId="new-account-title" title="Create an account" onSubmit={() => void create.run()}>
          <InputField
            id="account-name"
            label="Account name"
            hint="Unique in the service, 1 to 100 characters."
            required
            maxLength={100}
            {...bound(name, setName, create.error, "/body/name")}
          />
          <SubmitRow action={create} failed="Account not created" busy="Creating…">
            Create account
          </SubmitRow>
        </TitledForm>
      </FormPanel>
      <section class="card" aria-labelledby="accounts-title">
        <div class="card-head">
          <h2 id="accounts-title">All accounts</h2>
          <RefreshButton list={list} />
        </div>
        <PagedRows list={list} noun="accounts" one="account" errorPrefix="Could not load the accounts" empty="No accounts yet.">
          {(items) => (
            <ListTable
              caption="Accounts, newest first"
              rows={items}
              bodyRef={list.rowsRef}
              rowKey={(a) => a.accountId}
              rowAttributes={(a) => ({ "data-account": a.name })}
              columns={[
                { label: "Name", cell: (a) => <Link to={accountPath(a.accountId)}>{a.name}</Link> },
                { label: "Suspended", cell: (a) => (a.suspended ? "yes" : "no") },
                { label: "Quota use", cell: (a) => quotaUsage(a.limits, a.usage) },
                { label: "Balance", numeric: true, cell: (a) => formatMicros(a.balance, a.limits.currency) },
                { label: "Created", cell: (a) => formatTime(a.createdAt) },
              ]}
            />
          )}
        </PagedRows>
      </section>
      <NumberHolder />
    </section>
  );
}
