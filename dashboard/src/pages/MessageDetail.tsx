// One message: its fields, its status timeline and the receipts posted about it to each webhook.
import { useState } from "preact/hooks";
import { ok, type Message, type Webhook, type WebhookDelivery } from "../api.js";
import { MetadataTable } from "../metadata.js";
import { LoadMore, usePagedList } from "../paging.js";
import { formatMicros } from "../money.js";
import { Link } from "../router.js";
import { formatTime } from "../time.js";
import { Loading, Notice, ProblemMessage, StatusChip, useAsync, useNotice, usePolling, useSession } from "../ui.js";
import { conversationPath } from "./Inbox.js";
import { CancelMessageDialog } from "./Messages.js";
import { useContactNames } from "../contactNames.js";
import { Identifier } from "../identifier.js";

const FINAL = new Set(["delivered", "failed", "undelivered", "cancelled"]);

/** The receipts of one message posted to one webhook. */
function WebhookReceipts({ webhook, message }: { webhook: Webhook; message: Message }) {
  const { client } = useSession();
  const deliveries = usePagedList<WebhookDelivery>(
    async (page) =>
      ok(
        client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId: webhook.webhookId }, query: { ...page, messageId: message.messageId } },
        }),
      ),
    // Receipts follow status changes: reload when the history grows.
    [webhook.webhookId, message.messageId, message.history.length],
  );
  usePolling(deliveries.reload, 3000, !!deliveries.items?.some((d) => d.status === "pending"));
  const items = deliveries.items;
  return (
    <div>
      <h3>
        {webhook.name} <span class="muted">{webhook.url}</span>
      </h3>
      <ProblemMessage error={deliveries.error} />
      {!items && deliveries.loading && <Loading what="receipts" />}
      {items?.length === 0 && <p class="muted">No receipt for this message yet.</p>}
      {items && items.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Outcome</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
            </tr>
          </thead>
          <tbody ref={deliveries.rowsRef}>
            {items.map((d) => {
              const last = d.attempts.at(-1);
              return (
                <tr key={d.deliveryId}>
                  <td data-label="Event">{d.event}</td>
                  <td data-label="Outcome">
                    <StatusChip status={d.status} />
                  </td>
                  <td data-label="Attempts">{d.attempts.length}</td>
                  <td data-label="Last answer">{last ? `${last.responseStatus ?? last.error ?? "—"} at ${formatTime(last.at)}` : "—"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <LoadMore list={deliveries} noun="receipts" one="receipt" />
    </div>
  );
}

function Receipts({ message }: { message: Message }) {
  const { client } = useSession();
  const webhooks = useAsync(async () => (await ok(client.GET("/api/v1/webhooks"))).data, []);
  return (
    <section aria-labelledby="receipts-title" class="card">
      <h2 id="receipts-title">Receipts</h2>
      <ProblemMessage error={webhooks.error} />
      {!webhooks.data && webhooks.loading && <Loading what="receipts" />}
      {webhooks.data?.length === 0 && (
        <p class="muted">
          No webhooks: receipts are not posted. Add one in <Link to="/settings/webhooks">Settings → Webhooks</Link>.
        </p>
      )}
      {webhooks.data?.map((webhook) => (
        <WebhookReceipts key={webhook.webhookId} webhook={webhook} message={message} />
      ))}
    </section>
  );
}

export function MessageDetail({ messageId }: { messageId: string }) {
  const { client, canSend } = useSession();
  const [cancelling, setCancelling] = useState(false);
  const [notice, setNotice] = useNotice();
  const message = useAsync(() => ok(client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } })), [messageId]);
  const m = message.data;
  const names = useContactNames(m ? [m.direction === "inbound" ? m.from : m.to] : []);
  usePolling(message.reload, 2000, !!m && !FINAL.has(m.status));

  return (
    <section>
      <p>
        <Link to="/messages">← Messages</Link>
      </p>
      <h1 tabIndex={-1}>Message {m ? (m.direction === "inbound" ? `from ${m.from}` : `to ${m.to}`) : ""}</h1>
      {m && names.get(m.direction === "inbound" ? m.from : m.to) && (
        <p class="muted">Contact: {names.get(m.direction === "inbound" ? m.from : m.to)}</p>
      )}
      <ProblemMessage error={message.error} />
      {!m && message.loading && <Loading what="the message" />}
      {notice && <Notice>{notice}</Notice>}
      {m && (
        <>
          <div class="card">
            <p class="status-line">
              Status: <StatusChip status={m.status} />
              {m.status === "scheduled" && canSend && (
                <button type="button" class="danger" onClick={() => setCancelling(true)}>
                  Cancel message
                </button>
              )}
            </p>
            <dl class="facts">
              <dt>Message id</dt>
              <dd>
                <Identifier id={m.messageId} label="message id" full />
              </dd>
              <dt>Direction</dt>
              <dd data-testid="message-direction">{m.direction === "inbound" ? "inbound (received from a person)" : "outbound (sent)"}</dd>
              <dt>From</dt>
              <dd>{m.from}</dd>
              <dt>To</dt>
              <dd>{m.to}</dd>
              <dt>Conversation</dt>
              <dd>
                <Link to={conversationPath(m.direction === "inbound" ? m.from : m.to)}>
                  With {m.direction === "inbound" ? m.from : m.to}
                </Link>
              </dd>
              <dt>Text</dt>
              <dd class="pre">{m.body}</dd>
              <dt>Size</dt>
              <dd>
                {m.segments} segment{m.segments === 1 ? "" : "s"}, {m.encoding}
              </dd>
              {m.direction === "inbound" ? (
                <>
                  <dt>Received</dt>
                  <dd>
                    <time dateTime={m.receivedAt}>{formatTime(m.receivedAt)}</time>
                  </dd>
                  <dt>Complete</dt>
                  <dd data-testid="message-incomplete">
                    {m.incomplete ? "No: parts of this long message never arrived; the text has what did." : "Yes, every part arrived."}
                  </dd>
                </>
              ) : (
                <>
                  <dt>Scheduled for</dt>
                  <dd>
                    <time dateTime={m.scheduledAt}>{formatTime(m.scheduledAt)}</time>
                  </dd>
                  <dt>Category and priority</dt>
                  <dd>
                    {m.category}, {m.priority}
                  </dd>
                  <dt>Valid until</dt>
                  <dd data-testid="valid-until">
                    {m.validUntil ? (
                      <>
                        <time dateTime={m.validUntil}>{formatTime(m.validUntil)}</time>{" "}
                        <small class="muted">(not handed to the carrier by then, it is never sent)</small>
                      </>
                    ) : (
                      "no limit"
                    )}
                  </dd>
                  {m.deferredUntil && (
                    <>
                      <dt>Held until</dt>
                      <dd data-testid="deferred-until">
                        <time dateTime={m.deferredUntil}>{formatTime(m.deferredUntil)}</time>{" "}
                        <small class="muted">(a marketing message held by the account's quiet hours in the recipient's local time)</small>
                      </dd>
                    </>
                  )}
                </>
              )}
              {m.direction === "outbound" && m.sentBody !== null && (
                <>
                  <dt>Sent as</dt>
                  <dd class="pre" data-testid="sent-body">
                    {m.sentBody} <small class="muted">(smart-encoded: look-alike characters replaced to send it as GSM-7)</small>
                  </dd>
                </>
              )}
              {m.direction === "outbound" && (
                <>
                  <dt>Reference</dt>
                  <dd data-testid="message-reference">{m.reference ?? <span class="muted">none</span>}</dd>
                  <dt>Metadata</dt>
                  <dd>
                    <MetadataTable metadata={m.metadata} label="Metadata of the message" />
                  </dd>
                </>
              )}
              {m.direction === "outbound" && m.price && (
                <>
                  <dt>Price</dt>
                  <dd data-testid="message-price">
                    {`${formatMicros(m.price.amount, m.price.currency)} (${m.segments} segment${m.segments === 1 ? "" : "s"} at ${formatMicros(m.price.perSegment, m.price.currency)})`}
                  </dd>
                </>
              )}
              {m.direction === "outbound" && m.batchId && (
                <>
                  <dt>Batch</dt>
                  <dd>
                    <code>{m.batchId}</code> <Link to={`/messages?batchId=${m.batchId}`}>Messages of this batch</Link>
                  </dd>
                </>
              )}
              {m.direction === "outbound" && m.campaignId && (
                <>
                  <dt>Campaign</dt>
                  <dd>
                    <Link to={`/campaigns/${m.campaignId}`}>Open the campaign</Link>
                  </dd>
                </>
              )}
              {m.direction === "outbound" && m.providerMessageId && (
                <>
                  <dt>Provider id</dt>
                  <dd>
                    <code>{m.providerMessageId}</code>
                  </dd>
                </>
              )}
              {m.direction === "outbound" && m.error && (
                <>
                  <dt>Error</dt>
                  <dd>
                    <code>{m.error.code}</code> {m.error.message}
                  </dd>
                </>
              )}
            </dl>
          </div>
          <section class="card" aria-labelledby="timeline-title">
            <h2 id="timeline-title">Status timeline</h2>
            <ol class="timeline">
              {m.history.map((h, i) => (
                <li key={`${h.status}-${i}`}>
                  <StatusChip status={h.status} /> <time dateTime={h.at}>{formatTime(h.at)}</time>
                </li>
              ))}
            </ol>
          </section>
          <Receipts message={m} />
          <CancelMessageDialog
            message={cancelling ? m : undefined}
            onClose={() => setCancelling(false)}
            onCancelled={() => {
              setNotice("Message cancelled.");
              void message.reload();
            }}
          />
        </>
      )}
    </section>
  );
}
