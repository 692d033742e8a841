// The audit log: every successful change, newest first — when, by whom (the kind of key and its id), to which
// account, what (the operation) and to what. An account key sees its own account's; the operator sees all,
// and filters by account too. Filters live in the query string (?action=, ?accountId=).
import { useState } from "preact/hooks";
import { OPERATION_SUMMARIES } from "../../../client/operations.js";
import { ok, type AuditEvent } from "../api.js";
import { PagedRows, usePagedList } from "../paging.js";
import { Link, navigate, useLocation } from "../router.js";
import { formatTime } from "../time.js";
import { ListTable, OrDash } from "../listTable.js";
import { useSession } from "../ui.js";
import { Identifier } from "../identifier.js";
import { useAccountNames } from "./operator/accountNames.js";
import { Options, SelectField } from "../forms.js";

const ACTORS = { account: "account key", operator: "operator key", cli: "keys command" } as const;

/** An action in words: the operation's summary from the document (the keys command's own two besides). */
const CLI_ACTIONS: Record<string, string> = { "keys.create": "Create a key", "keys.revoke": "Revoke a key" };
export const actionInWords = (action: string): string => OPERATION_SUMMARIES[action] ?? CLI_ACTIONS[action] ?? action;

export function AuditLog() {
  const { client, key } = useSession();
  const operator = key.kind === "operator";
  const base = operator ? "/operator/audit-log" : "/audit-log";
  const { query } = useLocation();
  const action = query.get("action") ?? "";
  const accountId = operator ? (query.get("accountId") ?? "") : "";
  const [typed, setTyped] = useState(action);
  // The operator's rows name their account: the first 100 accounts give the names (others show their id).
  const { accounts, nameOf } = useAccountNames(operator);
  const list = usePagedList<AuditEvent>(
    async (page) =>
      ok(
        client.GET("/api/v1/audit-events", {
          params: { query: { ...page, ...(action ? { action } : {}), ...(accountId ? { accountId } : {}) } },
        }),
      ),
    [action, accountId],
    50,
  );
  const show = (next: { action?: string; accountId?: string }) => {
    const params = new URLSearchParams();
    const a = next.action ?? action;
    const id = next.accountId ?? accountId;
    if (a) params.set("action", a);
    if (id) params.set("accountId", id);
    const qs = params.toString();
    navigate(`${base}${qs ? `?${qs}` : ""}`, { replace: true });
  };
  const actions = [...new Set(list.items?.map((e) => e.action) ?? [])].sort();
  return (
    <section>
      <h1 tabIndex={-1}>Audit log</h1>
      <p class="muted">
        {operator ? "Every successful change in the service" : "Every successful change to this account"}, newest first: who made it (the
        kind of key and its id, never the key itself), the operation and what it changed. Request bodies are never kept.
      </p>
      <search class="toolbar" aria-label="Filter the audit log">
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            show({ action: typed.trim() });
          }}
        >
          <div class="field">
            <label for="audit-action">Action</label>
            <input id="audit-action" list="audit-actions" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
            <datalist id="audit-actions">
              {actions.map((a) => (
                <option key={a} value={a}>
                  {actionInWords(a)}
                </option>
              ))}
            </datalist>
          </div>
          <button type="submit">Filter</button>
        </form>
        {operator && (
          <SelectField id="audit-account" label="Account" value={accountId} onValue={(chosen) => show({ accountId: chosen })}>
            <option value="">All accounts</option>
            {accountId && !nameOf(accountId) && <option value={accountId}>{accountId}</option>}
            <Options items={accounts} value={(a) => a.accountId} label={(a) => a.name} />
          </SelectField>
        )}
        {(action || accountId) && (
          <button
            type="button"
            onClick={() => {
              setTyped("");
              show({ action: "", accountId: "" });
            }}
          >
            Show every event
          </button>
        )}
      </search>
      <PagedRows
        list={list}
        noun="events"
        one="event"
        loading="the audit log"
        errorPrefix="Could not load the audit log"
        empty={action || accountId ? "No events match these filters." : "No changes yet."}
      >
        {(items) => (
          <ListTable
            caption="Audit events, newest first"
            rows={items}
            bodyRef={list.rowsRef}
            rowKey={(e) => e.auditEventId}
            rowAttributes={(e) => ({ "data-action": e.action })}
            columns={[
              { label: "At", cell: (e) => formatTime(e.at) },
              {
                label: "Actor",
                cell: (e) =>
                  e.actor.email ? (
                    e.actor.email
                  ) : (
                    <>
                      {e.actor.keyId?.startsWith("user:") ? "person" : ACTORS[e.actor.type]}{" "}
                      {e.actor.keyId && <Identifier id={e.actor.keyId} label="key" />}
                    </>
                  ),
              },
              ...(operator
                ? [
                    {
                      label: "Account",
                      cell: (e: AuditEvent) =>
                        e.accountId ? (
                          <Link to={`/operator/accounts/${e.accountId}`}>{nameOf(e.accountId) ?? `${e.accountId.slice(0, 8)}…`}</Link>
                        ) : (
                          <span class="muted">the service</span>
                        ),
                    },
                  ]
                : []),
              {
                label: "Action",
                cell: (e) => (
                  <>
                    {actionInWords(e.action)} <code class="muted">{e.action}</code>
                  </>
                ),
              },
              {
                label: "Resource",
                cell: (e) => (e.resourceId ? <Identifier id={e.resourceId} label="resource" /> : <span class="muted">—</span>),
              },
              { label: "Status", cell: (e) => <OrDash value={e.status} /> },
            ]}
          />
        )}
      </PagedRows>
    </section>
  );
}
