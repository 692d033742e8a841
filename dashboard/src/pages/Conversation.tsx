// The conversation with one number: both directions in time order, whether the number opted out (and the button
// to change that), and a reply sent now (POST /messages) from one of the account's numbers. Opening it marks its
// thread read.
import { useEffect, useState } from "preact/hooks";
import { ApiProblem, ok, type Message, type Schemas } from "../api.js";
import { LoadMore, usePagedList, RefreshButton } from "../paging.js";
import { Link } from "../router.js";
import { countIds, MessageCount, smartField, useSmartEncoding } from "../segments.js";
import { formatTime } from "../time.js";
import {
  type Async,
  Field,
  fieldError,
  Loading,
  Notice,
  ProblemMessage,
  StatusChip,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  LIVE_MS,
  usePolling,
  useSession,
} from "../ui.js";
import { useContactNames } from "../contactNames.js";

const LIMIT = 50;

const sentOrReceived = (m: Message) => (m.direction === "inbound" ? m.receivedAt : (m.sentAt ?? m.scheduledAt));

type OptOut = Schemas["OptOut"];

/** Whether the number opted out: its entry, null when it is not on the list. */
function useOptOut(phone: string, version: unknown) {
  const { client } = useSession();
  return useAsync(async () => {
    try {
      return await ok(client.GET("/api/v1/opt-outs/{phone}", { params: { path: { phone } } }));
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 404) return null; // not on the list
      throw error;
    }
  }, [phone, version]);
}

function OptOutState({ phone, state }: { phone: string; state: Async<OptOut | null> }) {
  const { client, canWrite } = useSession();
  const [notice, setNotice] = useNotice();
  const change = useAction(async (optOut: boolean) => {
    const params = { params: { path: { phone } } };
    if (optOut) state.setData(await ok(client.PUT("/api/v1/opt-outs/{phone}", params)));
    else {
      await ok(client.DELETE("/api/v1/opt-outs/{phone}", params));
      state.setData(null);
    }
    setNotice(optOut ? `${phone} opted out: it is sent nothing more.` : `${phone} removed from the opt-out list: it may be sent to again.`);
  });
  const entry = state.data;
  return (
    <section class="card" aria-labelledby="consent-title">
      <h2 id="consent-title">Consent</h2>
      <ProblemMessage error={state.error ?? change.error} />
      {entry === undefined && state.loading && <Loading what="the opt-out state" />}
      {entry === null && <p data-testid="opt-out-state">Not opted out: messages to this number are sent.</p>}
      {entry && (
        <p data-testid="opt-out-state">
          <strong>Opted out</strong> {formatTime(entry.createdAt)}{" "}
          {entry.source === "keyword" ? `by sending ${entry.keyword ?? "a keyword"}` : "through the API or the dashboard"}: nothing is sent
          to this number.
        </p>
      )}
      {entry !== undefined && canWrite && (
        <div class="actions">
          <button type="button" class={entry ? "" : "danger"} disabled={change.busy} onClick={() => void change.run(!entry)}>
            {entry ? "Remove the opt-out" : "Opt out this number"}
          </button>
        </div>
      )}
      {notice && <Notice>{notice}</Notice>}
    </section>
  );
}

function ReplyForm({
  phone,
  defaultFrom,
  optedOut: closed,
  onSent,
  onRefused,
}: {
  phone: string;
  defaultFrom: string | undefined;
  /** The number is on the opt-out list: nothing can be sent to it. */
  optedOut: boolean;
  onSent: () => void;
  onRefused: () => void;
}) {
  const { client } = useSession();
  const [body, setBody] = useState("");
  const [chosenFrom, setFrom] = useState<string | undefined>();
  const [notice, setNotice] = useNotice();
  const [smart, setSmart] = useSmartEncoding();
  // The first 100 numbers are offered (an account with more can still reply from the one the person wrote to).
  const numbers = useAsync(async () => (await ok(client.GET("/api/v1/numbers", { params: { query: { limit: 100 } } }))).data, []);
  const from = chosenFrom ?? defaultFrom ?? numbers.data?.[0]?.phoneNumber ?? "";
  const send = useAction(async () => {
    setNotice(undefined);
    try {
      await ok(client.POST("/api/v1/messages", { body: { to: phone, from, body, ...smartField(body, smart) } }));
    } catch (error) {
      // Opted out meanwhile (a STOP, another tab): the consent card shows it too.
      if (error instanceof ApiProblem && error.problem.code === "recipient_opted_out") onRefused();
      throw error;
    }
    setBody("");
    setNotice("Reply sent: it goes out now.");
    onSent();
  });
  const optedOut = send.error?.problem.code === "recipient_opted_out";
  return (
    <TitledForm titleId="reply-title" title="Reply" onSubmit={() => void send.run()}>
      {numbers.data?.length === 0 && (
        <p class="muted">
          The account has no numbers to reply from. Add one in <Link to="/settings/numbers">Settings → Numbers</Link>.
        </p>
      )}
      <ProblemMessage error={numbers.error} prefix="Could not load the account's numbers" />
      <Field id="reply-from" label="From" error={fieldError(send.error, "/body/from")}>
        <select id="reply-from" required value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
          {from && !numbers.data?.some((n) => n.phoneNumber === from) && <option value={from}>{from}</option>}
          {numbers.data?.map((n) => (
            <option key={n.numberId} value={n.phoneNumber}>
              {n.phoneNumber}
              {n.name ? ` (${n.name})` : ""}
            </option>
          ))}
        </select>
      </Field>
      {closed && (
        <p class="notice notice-info" id="reply-closed" data-testid="reply-closed">
          {phone} opted out: no message can be sent until they send START.
        </p>
      )}
      <Field id="reply-body" label="Message" error={fieldError(send.error, "/body/body")}>
        <textarea
          id="reply-body"
          required
          disabled={closed}
          rows={3}
          maxLength={1600}
          value={body}
          onInput={(e) => setBody(e.currentTarget.value)}
          aria-describedby={`${closed ? "reply-closed " : ""}${countIds("reply-body-count", body)}`}
        />
        <MessageCount text={body} id="reply-body-count" smart={smart} onSmart={setSmart} />
      </Field>
      {optedOut ? (
        <div class="problem" role="alert" data-testid="reply-opted-out">
          <p>
            <strong>Not sent: {phone} has opted out.</strong> {send.error?.problem.detail} Remove the opt-out above only if the person asked
            to receive messages again.
          </p>
        </div>
      ) : (
        <ProblemMessage error={send.error} prefix="Reply not sent" />
      )}
      {notice && <Notice>{notice}</Notice>}
      <div class="actions">
        <button type="submit" class="primary" disabled={send.busy || !from || closed}>
          {send.busy ? "Sending…" : "Send reply"}
        </button>
      </div>
    </TitledForm>
  );
}

export function Conversation({ phone }: { phone: string }) {
  const { client, canSend } = useSession();
  const list = usePagedList<Message>(
    async (page) => ok(client.GET("/api/v1/messages", { params: { query: { ...page, phone } } })),
    [phone],
    LIMIT,
  );
  const [optOutVersion, setOptOutVersion] = useState(0);
  const items = list.items ?? [];
  // Oldest first, as a conversation reads; the API pages newest first, so "Load more" brings older ones (above).
  const ordered = [...items].sort((a, b) => Date.parse(sentOrReceived(a)) - Date.parse(sentOrReceived(b)));
  const latestInbound = items.find((m) => m.direction === "inbound");
  // Asked again when a reply is refused as opted out, and when the person writes (a STOP or a START changes it).
  const optOut = useOptOut(phone, `${optOutVersion} ${latestInbound?.messageId ?? ""}`);
  // Live: the person's messages and our messages' status changes show within 2 seconds (paused while hidden).
  usePolling(list.poll, LIVE_MS, items.length <= 2 * LIMIT);
  const names = useContactNames([phone]);
  // Seen: the thread is read up to its latest message shown (again when another arrives while it is open).
  useEffect(() => {
    if (!latestInbound) return;
    void client.POST("/api/v1/conversations/{phone}/read", { params: { path: { phone } } });
  }, [latestInbound?.messageId]);

  return (
    <section>
      <p>
        <Link to="/inbox">← Inbox</Link>
      </p>
      <h1 tabIndex={-1}>Conversation with {phone}</h1>
      {names.get(phone) && <p class="muted">Contact: {names.get(phone)}</p>}
      <OptOutState phone={phone} state={optOut} />
      <section class="card" aria-labelledby="conversation-title">
        <div class="card-head">
          <h2 id="conversation-title">Messages</h2>
          <RefreshButton list={list} />
        </div>
        <LoadMore list={list} noun="messages" one="message" />
        <ProblemMessage error={list.error} prefix="Could not load the conversation" />
        {!list.items && list.loading && <Loading what="the conversation" />}
        {list.items?.length === 0 && <p class="muted">No messages with this number yet.</p>}
        {ordered.length > 0 && (
          <ol class="conversation" aria-label={`Messages with ${phone}, oldest first`}>
            {ordered.map((m) => (
              <li key={m.messageId} class={`turn turn-${m.direction}`} data-direction={m.direction}>
                <p class="turn-head">
                  <span class={`chip chip-${m.direction}`}>{m.direction}</span>{" "}
                  {m.direction === "outbound" && <StatusChip status={m.status} />}{" "}
                  <time dateTime={sentOrReceived(m)}>{formatTime(sentOrReceived(m))}</time>{" "}
                  <span class="muted">{m.direction === "inbound" ? `to ${m.to}` : `from ${m.from}`}</span>
                </p>
                <p class="pre">{m.body}</p>
                <Link to={`/messages/${m.messageId}`} aria-label={`Details of the message of ${formatTime(sentOrReceived(m))}`}>
                  Details
                </Link>
              </li>
            ))}
          </ol>
        )}
      </section>
      {canSend && (
        <ReplyForm
          phone={phone}
          defaultFrom={latestInbound?.direction === "inbound" ? latestInbound.to : undefined}
          optedOut={!!optOut.data}
          onSent={() => void list.reload()}
          onRefused={() => setOptOutVersion((v) => v + 1)}
        />
      )}
    </section>
  );
}
