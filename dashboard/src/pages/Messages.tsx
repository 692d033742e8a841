// Messages: the list with status chips and filters (status, campaign), scheduling a message, cancelling one.
import { useState } from "preact/hooks";
import { MESSAGE_STATUSES, ok, type Campaign, type Message } from "../api.js";
import { PagedRows, usePagedList } from "../paging.js";
import { Link, navigate, useLocation } from "../router.js";
import { SegmentCount } from "../segments.js";
import { PolicyFields, policyBody, usePolicy } from "../policyFields.js";
import { formatTime, localInputToUtc, timeZone, toLocalInput, utcOffset } from "../time.js";
import { ConfirmDialog, Field, fieldError, Notice, ProblemMessage, StatusChip, useAction, usePolling, useSession } from "../ui.js";
import { QuotaNote } from "../usage.js";

const LIMIT = 25;

function ScheduleForm({ onScheduled }: { onScheduled: (messageId: string, scheduledAt: string) => void }) {
  const { client } = useSession();
  const [to, setTo] = useState("");
  const [from, setFrom] = useState("");
  const [body, setBody] = useState("");
  const [when, setWhen] = useState(() => toLocalInput(new Date(Date.now() + 3600_000)));
  // The API's defaults for a single message.
  const [policy, setPolicy] = usePolicy({ category: "transactional", priority: "normal" });
  const utc = localInputToUtc(when);
  const action = useAction(async () => {
    const scheduled = await ok(
      client.POST("/api/v1/scheduler/schedule", { body: { to, from, body, scheduledAt: utc ?? when, ...policyBody(policy) } }),
    );
    setBody("");
    onScheduled(scheduled.messageId, scheduled.scheduledAt);
  });
  const err = (path: string) => fieldError(action.error, path);
  return (
    <form
      class="card"
      aria-labelledby="schedule-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 id="schedule-title">Schedule a message</h2>
      <div class="grid-2">
        <Field id="msg-to" label="To" hint="With its +country prefix, e.g. +14155550123" error={err("/body/to")}>
          <input
            id="msg-to"
            type="tel"
            required
            autoComplete="off"
            value={to}
            onInput={(e) => setTo(e.currentTarget.value)}
            aria-describedby="msg-to-hint"
          />
        </Field>
        <Field id="msg-from" label="From" hint="Sender ID (1–11 letters/digits) or a phone number" error={err("/body/from")}>
          <input id="msg-from" required value={from} onInput={(e) => setFrom(e.currentTarget.value)} aria-describedby="msg-from-hint" />
        </Field>
      </div>
      <Field id="msg-body" label="Message" error={err("/body/body")}>
        <textarea
          id="msg-body"
          required
          rows={3}
          maxLength={1600}
          value={body}
          onInput={(e) => setBody(e.currentTarget.value)}
          aria-describedby="msg-body-count"
        />
        <SegmentCount text={body} id="msg-body-count" />
      </Field>
      <Field
        id="msg-when"
        label="Send at"
        error={err("/body/scheduledAt")}
        hint={
          <>
            Your time zone: {timeZone()} ({utcOffset(utc ? new Date(utc) : new Date())}). Sent as{" "}
            <output id="msg-when-utc">{utc ?? "—"}</output> (UTC).
          </>
        }
      >
        <input
          id="msg-when"
          type="datetime-local"
          required
          value={when}
          onInput={(e) => setWhen(e.currentTarget.value)}
          aria-describedby="msg-when-hint"
        />
      </Field>
      <PolicyFields id="msg" policy={policy} onChange={setPolicy} error={err} />
      <ProblemMessage error={action.error} prefix="Not scheduled" />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {action.busy ? "Scheduling…" : "Schedule message"}
        </button>
      </div>
    </form>
  );
}

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
  const [notice, setNotice] = useState<{ text: string; messageId?: string } | undefined>();
  const [cancelling, setCancelling] = useState<Message | undefined>();

  const campaigns = usePagedList<Campaign>(async (page) => ok(client.GET("/api/v1/campaigns", { params: { query: page } })), [], 50);
  const list = usePagedList<Message>(
    async (page) =>
      ok(
        client.GET("/api/v1/messages", {
          params: { query: { ...page, ...(status ? { status: status as Message["status"] } : {}), ...(campaignId ? { campaignId } : {}) } },
        }),
      ),
    [status, campaignId],
    LIMIT,
  );

  // Statuses move on by themselves: refresh while something shown is about to change (and few rows are shown,
  // as a reload fetches every row shown).
  const changing = (m: Message) => m.status === "sent" || (m.status === "scheduled" && Date.parse(m.scheduledAt) - Date.now() < 60_000);
  usePolling(list.reload, 3000, !!list.items && list.items.length <= 4 * LIMIT && list.items.some(changing));

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
      {canSend && (
        <ScheduleForm
          onScheduled={(messageId, scheduledAt) => {
            setNotice({ text: `Message scheduled for ${formatTime(scheduledAt)} (${scheduledAt} UTC).`, messageId });
            void list.reload();
          }}
        />
      )}
      {notice && (
        <Notice>
          {notice.text} {notice.messageId && <Link to={`/messages/${notice.messageId}`}>Open it</Link>}
        </Notice>
      )}

      <search class="toolbar" aria-label="Filter messages">
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(e) => setFilter("status", e.currentTarget.value)}>
            <option value="">All statuses</option>
            {MESSAGE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-campaign">Campaign</label>
          <select id="filter-campaign" value={campaignId} onChange={(e) => setFilter("campaignId", e.currentTarget.value)}>
            <option value="">All messages</option>
            {campaignId && !campaignOptions.some((c) => c.campaignId === campaignId) && <option value={campaignId}>{campaignId}</option>}
            {campaignOptions.map((c) => (
              <option key={c.campaignId} value={c.campaignId}>
                {c.name}
              </option>
            ))}
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
        <button type="button" onClick={() => void list.reload()} disabled={list.loading}>
          Refresh
        </button>
      </search>

      <PagedRows
        list={list}
        noun="messages"
        one="message"
        errorPrefix="Could not load messages"
        empty={`No messages${status || campaignId ? " match these filters" : " yet"}.`}
      >
        {(items) => (
          <ul class="rows" aria-label="Messages" aria-busy={list.loading} ref={list.rowsRef}>
            {items.map((m) => (
              <li key={m.messageId} class="row" data-message-id={m.messageId}>
                <div class="row-main">
                  <Link to={`/messages/${m.messageId}`} class="row-title">
                    {m.direction === "inbound" ? m.from : m.to}
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
                    <span>
                      {m.status === "scheduled" ? "Sends" : "Scheduled"} <time dateTime={m.scheduledAt}>{formatTime(m.scheduledAt)}</time>
                    </span>
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
