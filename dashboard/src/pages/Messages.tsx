// Messages: the list with status chips, its search (text, number, date range) and filters (status, campaign,
// reference, batch), sending or scheduling a message, cancelling one.
import { useState } from "preact/hooks";
import { MESSAGE_STATUSES, ok, type Campaign, type Message } from "../api.js";
import { PagedRows, usePagedList, RefreshButton } from "../paging.js";
import { Link, navigate, useLocation } from "../router.js";
import { formatTime } from "../time.js";
import {
  ConfirmDialog,
  FormPanel,
  FormToggle,
  LIVE_MS,
  Notice,
  SearchInput,
  StatusChip,
  useNotice,
  usePolling,
  useSession,
} from "../ui.js";
import { QuotaNote } from "../usage.js";
import { SendForm } from "./SendForm.js";
import { ExportButton } from "../exports.js";
import { Person, useContactNames } from "../contactNames.js";
import { Options, SelectField } from "../forms.js";

const LIMIT = 25;

export function CancelMessageDialog({
  message,
  onClose,
  onCancelled,
}: {
  message: Pick<Message, "messageId" | "to"> | undefined;
  onClose: () => void;
  onCancelled: (m: Pick<Message, "messageId">) => void;
}) {
  const { client } = useSession();
  return (
    <ConfirmDialog
      open={!!message}
      title="Cancel this message?"
      confirmLabel="Cancel message"
      danger
      onClose={onClose}
      onConfirm={async () => {
        await ok(client.DELETE("/api/v1/scheduler/cancel/{messageId}", { params: { path: { messageId: message!.messageId } } }));
        onCancelled(message!);
      }}
    >
      <p>The message to {message?.to} will not be sent. This cannot be undone.</p>
    </ConfirmDialog>
  );
}

export function Messages() {
  const { client, canSend } = useSession();
  const { query } = useLocation();
  const status = query.get("status") ?? "";
  const campaignId = query.get("campaignId") ?? "";
  const reference = query.get("reference") ?? "";
  const batchId = query.get("batchId") ?? "";
  const q = query.get("q") ?? "";
  const to = query.get("to") ?? "";
  const since = query.get("since") ?? "";
  const until = query.get("until") ?? "";
  const [notice, setNotice] = useNotice<{ text: string; messageId?: string }>();
  const [cancelling, setCancelling] = useState<Message | undefined>();
  const [sending, setSending] = useState(false);

  const campaigns = usePagedList<Campaign>(async (page) => ok(client.GET("/api/v1/campaigns", { params: { query: page } })), [], 50);
  const list = usePagedList<Message>(
    async (page) =>
      ok(
        client.GET("/api/v1/messages", {
          params: {
            query: {
              ...page,
              ...(status ? { status: status as Message["status"] } : {}),
              ...(campaignId ? { campaignId } : {}),
              ...(reference ? { reference } : {}),
              ...(batchId ? { batchId } : {}),
              ...(q ? { q } : {}),
              ...(to ? { to } : {}),
              // The days as chosen, in the browser's zone: from the first's start to the last's end.
              ...(since ? { since: new Date(`${since}T00:00`).toISOString() } : {}),
              ...(until ? { until: new Date(new Date(`${until}T00:00`).getTime() + 86_400_000).toISOString() } : {}),
            },
          },
        }),
      ),
    [status, campaignId, reference, batchId, q, to, since, until],
    LIMIT,
  );

  // Live: new messages and status changes show within 2 seconds, without a reload (while few rows are shown, as
  // a reload fetches every row shown; paused while the tab is hidden).
  usePolling(list.poll, LIVE_MS, !!list.items && list.items.length <= 4 * LIMIT);
  const names = useContactNames(list.items?.map((m) => (m.direction === "inbound" ? m.from : m.to)) ?? []);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    const qs = next.toString();
    navigate(`/messages${qs ? `?${qs}` : ""}`, { replace: true });
  };

  const campaignOptions = campaigns.items ?? [];
  return (
    <section>
      <h1 tabIndex={-1}>Messages</h1>
      <QuotaNote />
      <div class="toolbar">
        {canSend && <FormToggle label="New message" panelId="send-panel" open={sending} onToggle={setSending} />}
        <ExportButton path="/api/v1/exports/messages" label="Export all messages (CSV)" />
      </div>
      {canSend && (
        <FormPanel id="send-panel" open={sending}>
          <SendForm
            onSent={({ messageId, to, scheduledAt, later }) => {
              const text = later
                ? `Message scheduled for ${formatTime(scheduledAt)} (${scheduledAt} UTC).`
                : `Message to ${to} accepted: it is sent now.`;
              setNotice({ text, messageId });
              void list.reload();
            }}
          />
        </FormPanel>
      )}
      {notice && (
        <Notice>
          {notice.text} {notice.messageId && <Link to={`/messages/${notice.messageId}`}>Open it</Link>}
        </Notice>
      )}

      <search class="toolbar" aria-label="Search and filter messages">
        <SearchInput
          id="filter-q"
          label="Text"
          value={q}
          onApply={(v) => setFilter("q", v)}
          maxLength={100}
          hint="In the message, any case; Enter to search"
        />
        <SearchInput
          id="filter-to"
          label="Number starts with"
          value={to}
          onApply={(v) => setFilter("to", v)}
          maxLength={16}
          inputMode="tel"
          pattern="\+?[0-9]{1,15}"
          hint="Sent to, e.g. +4479"
        />
        <div class="field">
          <label for="filter-since">Created from</label>
          <input id="filter-since" type="date" value={since} onChange={(e) => setFilter("since", e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="filter-until">Created until</label>
          <input id="filter-until" type="date" value={until} onChange={(e) => setFilter("until", e.currentTarget.value)} />
        </div>
        <SelectField id="filter-status" label="Status" value={status} onValue={(chosen) => setFilter("status", chosen)}>
          <option value="">All statuses</option>
          <Options items={MESSAGE_STATUSES} value={(s) => s} label={(s) => s} />
        </SelectField>
        <div class="field">
          <label for="filter-campaign">Campaign</label>
          <select id="filter-campaign" value={campaignId} onChange={(e) => setFilter("campaignId", e.currentTarget.value)}>
            <option value="">All messages</option>
            {campaignId && !campaignOptions.some((c) => c.campaignId === campaignId) && <option value={campaignId}>{campaignId}</option>}
            <Options items={campaignOptions} value={(c) => c.campaignId} label={(c) => c.name} />
          </select>
          {campaigns.hasMore && (
            <button
              type="button"
              class="link small"
              aria-disabled={campaigns.loadingMore}
              onClick={() => void campaigns.loadMore().then(() => document.getElementById("filter-campaign")?.focus())}
            >
              Load more campaigns
            </button>
          )}
        </div>
        <SearchInput
          id="filter-reference"
          label="Reference"
          value={reference}
          onApply={(v) => setFilter("reference", v)}
          maxLength={128}
          hint="Exact; Enter to apply"
        />
        {batchId && (
          <p class="field">
            <span>
              Batch <code>{batchId}</code>
            </span>
            <button type="button" class="link small" onClick={() => setFilter("batchId", "")}>
              Clear the batch filter
            </button>
          </p>
        )}
        <RefreshButton list={list} />
      </search>

      <PagedRows
        list={list}
        noun="messages"
        one="message"
        errorPrefix="Could not load messages"
        empty={`No messages${status || campaignId || reference || batchId || q || to || since || until ? " match these filters" : " yet"}.`}
      >
        {(items) => (
          <ul class="rows" aria-label="Messages" aria-busy={list.loading} ref={list.rowsRef}>
            {items.map((m) => (
              <li key={m.messageId} class="row" data-message-id={m.messageId}>
                <div class="row-main">
                  <Link to={`/messages/${m.messageId}`} class="row-title">
                    <Person phone={m.direction === "inbound" ? m.from : m.to} names={names} />
                  </Link>
                  {m.direction === "inbound" && <span class="chip chip-inbound">inbound</span>}
                  <StatusChip status={m.status} />
                  <p class="row-text">{m.body}</p>
                </div>
                <div class="row-meta">
                  {m.direction === "inbound" ? (
                    <span>
                      Received <time dateTime={m.receivedAt}>{formatTime(m.receivedAt)}</time>
                    </span>
                  ) : (
                    <MessageWhen m={m} />
                  )}
                  <span>
                    {m.direction === "inbound" ? `to ${m.to}` : `from ${m.from}`} · {m.segments} segment{m.segments === 1 ? "" : "s"}
                  </span>
                </div>
                <div class="row-actions">
                  {m.status === "scheduled" && canSend && (
                    <button type="button" class="danger" onClick={() => setCancelling(m)} aria-label={`Cancel message to ${m.to}`}>
                      Cancel
                    </button>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </PagedRows>
      <CancelMessageDialog
        message={cancelling}
        onClose={() => setCancelling(undefined)}
        onCancelled={(m) => {
          setNotice({ text: `Message to ${cancelling?.to ?? ""} cancelled.` });
          list.update((items) =>
            items.map((x) => (x.messageId === m.messageId && x.direction === "outbound" ? { ...x, status: "cancelled" } : x)),
          );
        }}
      />
    </section>
  );
}

type Outbound = Extract<Message, { direction: "outbound" }>;

/** The latest thing that happened to an outbound message and when (delivered, sent, cancelled…), or when it is due. */
function MessageWhen({ m }: { m: Outbound }) {
  const last = m.history.at(-1);
  const [label, at] =
    m.status === "scheduled" || !last || last.status === "scheduled"
      ? [m.status === "scheduled" ? "Sends" : "Scheduled", m.scheduledAt]
      : [last.status.charAt(0).toUpperCase() + last.status.slice(1), last.at];
  return (
    <span>
      {label} <time dateTime={at}>{formatTime(at)}</time>
    </span>
  );
}
