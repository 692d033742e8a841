// Settings → Webhooks: add, delete, reveal and copy the secret, rotate it, send a test receipt, the delivery
// log with redeliver, and the notice of a webhook disabled after a long failure run, with its Enable button.
import { useRef, useState } from "preact/hooks";
import { ok, RECEIPT_EVENTS, type Webhook, type WebhookDelivery, type WebhookEventType } from "../api.js";
import { LoadMore, usePagedList, RefreshButton } from "../paging.js";
import { Link } from "../router.js";
import { formatTime } from "../time.js";
import { BatchChoice, describeBatch, type BatchSetting } from "./WebhookBatch.js";
import { EditEvents, EventChoice } from "./WebhookEvents.js";
import { bound, InputField, SelectField, SubmitRow } from "../forms.js";
import {
  ConfirmDialog,
  Loading,
  Notice,
  ProblemMessage,
  StatusChip,
  TitledForm,
  useAction,
  useAsync,
  useNotice,
  useCopy,
  usePolling,
  useSession,
  ToggledPanel,
} from "../ui.js";

type DeliveryFilter = "" | WebhookDelivery["status"];

function Secret({ webhook, initial }: { webhook: Webhook; initial?: string }) {
  const { client, canWrite } = useSession();
  const [secret, setSecret] = useState<string | undefined>(initial);
  const copied = useCopy();
  const [rotating, setRotating] = useState(false);
  const [rotatedNote, setRotatedNote] = useState(false);
  const codeRef = useRef<HTMLElement>(null);
  const reveal = useAction(async () => {
    const answer = await ok(client.GET("/api/v1/webhooks/{webhookId}/secret", { params: { path: { webhookId: webhook.webhookId } } }));
    setSecret(answer.secret);
  });
  const id = `secret-${webhook.webhookId}`;
  return (
    <div class="secret">
      <h4>Signing secret</h4>
      {secret ? (
        <p>
          <code id={id} ref={codeRef} class="secret-value" data-testid="webhook-secret">
            {secret}
          </code>
        </p>
      ) : (
        <p class="muted">Hidden. Receivers verify every receipt with it.{!canWrite && " Only a full key may reveal it."}</p>
      )}
      {canWrite && (
        <div class="actions">
          {secret ? (
            <>
              <button
                type="button"
                onClick={() =>
                  copied.copy(secret, codeRef.current, {
                    done: "Secret copied to the clipboard.",
                    failed: "Could not copy: select the secret and copy it.",
                  })
                }
              >
                Copy secret
              </button>
              <button
                type="button"
                onClick={() => {
                  setSecret(undefined);
                  copied.clear();
                }}
              >
                Hide secret
              </button>
            </>
          ) : (
            <button type="button" onClick={() => void reveal.run()} disabled={reveal.busy} aria-label={`Reveal secret of ${webhook.name}`}>
              Reveal secret
            </button>
          )}
          <button type="button" onClick={() => setRotating(true)} aria-label={`Rotate secret of ${webhook.name}`}>
            Rotate secret
          </button>
        </div>
      )}
      <p class="muted" role="status">
        {copied.said}
      </p>
      {rotatedNote && (
        <Notice>
          New secret in use. Receipts are signed with both the old and the new secret for 24 hours, then with the new one only.
        </Notice>
      )}
      <ProblemMessage error={reveal.error} />
      <ConfirmDialog
        open={rotating}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        dismissLabel="Close"
        onClose={() => setRotating(false)}
        onConfirm={async () => {
          const answer = await ok(
            client.POST("/api/v1/webhooks/{webhookId}/secret/rotate", { params: { path: { webhookId: webhook.webhookId } } }),
          );
          setSecret(answer.secret);
          copied.clear();
          setRotatedNote(true);
        }}
      >
        <p>A new secret is made. The old one keeps working for 24 hours, so receivers can switch over without losing receipts.</p>
      </ConfirmDialog>
    </div>
  );
}

function TestReceipt({ webhook }: { webhook: Webhook }) {
  const { client } = useSession();
  const [result, setResult] = useState<string | undefined>();
  const [succeeded, setSucceeded] = useState(false);
  const action = useAction(async () => {
    setResult(undefined);
    const answer = await ok(client.POST("/api/v1/webhooks/{webhookId}/test", { params: { path: { webhookId: webhook.webhookId } } }));
    const a = answer.attempt;
    setSucceeded(answer.succeeded);
    setResult(
      answer.succeeded
        ? `Test receipt delivered: the receiver answered ${a.responseStatus} in ${a.durationMs} ms.`
        : `Test receipt not accepted: ${a.error ?? `the receiver answered ${a.responseStatus}`} (${a.durationMs} ms).`,
    );
  });
  return (
    <div>
      <button
        type="button"
        onClick={() => void action.run()}
        disabled={action.busy}
        aria-label={`${action.busy ? "Sending test receipt" : "Send test receipt"} to ${webhook.name}`}
      >
        {action.busy ? "Sending…" : "Send test receipt"}
      </button>
      <p role="status" class={result ? (succeeded ? "notice notice-ok" : "notice notice-bad") : ""} data-testid="test-result">
        {result}
      </p>
      <ProblemMessage error={action.error} />
    </div>
  );
}

function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const { client, canWrite } = useSession();
  const [filter, setFilter] = useState<DeliveryFilter>("");
  const [note, setNote] = useNotice();
  const log = usePagedList<WebhookDelivery>(
    async (page) =>
      ok(
        client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId: webhook.webhookId }, query: { ...page, ...(filter ? { status: filter } : {}) } },
        }),
      ),
    [webhook.webhookId, filter],
    50,
  );
  usePolling(log.reload, 2000, !!log.items && log.items.length <= 200 && log.items.some((d) => d.status === "pending"));
  const redeliver = useAction(async (d: WebhookDelivery) => {
    await ok(
      client.POST("/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", {
        params: { path: { webhookId: webhook.webhookId, deliveryId: d.deliveryId } },
      }),
    );
    setNote(`Receipt ${d.event} queued again.`);
    await log.reload();
  });
  const filterId = `log-filter-${webhook.webhookId}`;
  return (
    <section aria-label={`Delivery log of ${webhook.name}`} class="log">
      <div class="toolbar">
        <SelectField id={filterId} label="Outcome" value={filter} onValue={setFilter}>
          <option value="">All</option>
          <option value="pending">pending</option>
          <option value="succeeded">succeeded</option>
          <option value="failed">failed</option>
        </SelectField>
        <RefreshButton list={log} />
      </div>
      {note && <Notice>{note}</Notice>}
      <ProblemMessage error={log.error ?? redeliver.error} />
      {!log.items && log.loading && <Loading what="deliveries" />}
      {log.items?.length === 0 && <p class="muted">No deliveries{filter ? ` ${filter}` : " yet"}.</p>}
      {log.items && log.items.length > 0 && (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Message</th>
              <th scope="col">Outcome</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              {canWrite && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody ref={log.rowsRef}>
            {log.items.map((d) => {
              const last = d.attempts.at(-1);
              return (
                <tr key={d.deliveryId}>
                  <td data-label="Event">{d.event}</td>
                  <td data-label="Message">
                    {d.event === "dlr.test" || d.messageId === null ? (
                      <span class="muted">{d.event === "dlr.test" ? "test" : "none"}</span>
                    ) : (
                      // The id's tail: a UUIDv7 begins with its time, shared by the messages of one moment.
                      <Link to={`/messages/${d.messageId}`} aria-label={`Message ${d.messageId}`}>
                        …{d.messageId.slice(-12)}
                      </Link>
                    )}
                  </td>
                  <td data-label="Outcome">
                    <StatusChip status={d.status} />
                  </td>
                  <td data-label="Attempts">{d.attempts.length}</td>
                  <td data-label="Last answer">
                    {last ? (
                      <>
                        {last.responseStatus ?? last.error ?? "—"} <small class="muted">{formatTime(last.at)}</small>
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                  {canWrite && (
                    <td>
                      <button
                        type="button"
                        class="small"
                        onClick={() => void redeliver.run(d)}
                        disabled={redeliver.busy}
                        aria-label={`Redeliver ${d.event} of ${formatTime(d.createdAt)}`}
                      >
                        Redeliver
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <LoadMore list={log} noun="deliveries" one="delivery" />
    </section>
  );
}

/** A disabled webhook is sent nothing; its receipts are logged `failed` (webhook_disabled) until it is enabled. */
function DisabledNotice({ webhook, onEnabled }: { webhook: Webhook; onEnabled: () => Promise<void> }) {
  const { client, canWrite } = useSession();
  const enable = useAction(async () => {
    await ok(client.POST("/api/v1/webhooks/{webhookId}/enable", { params: { path: { webhookId: webhook.webhookId } } }));
    await onEnabled();
  });
  if (!webhook.disabledAt) return null;
  return (
    <div class="notice notice-bad" role="alert" data-testid="webhook-disabled">
      <p>
        <strong>Disabled {formatTime(webhook.disabledAt)}</strong>: {webhook.disabledReason}. It is sent no receipts; those made meanwhile
        are in the delivery log as failed (<code>webhook_disabled</code>) and can be redelivered once it is enabled.
      </p>
      {canWrite && (
        <button type="button" onClick={() => void enable.run()} disabled={enable.busy} aria-label={`Enable webhook ${webhook.name}`}>
          Enable webhook
        </button>
      )}
      <ProblemMessage error={enable.error} />
    </div>
  );
}

function WebhookCard({
  webhook,
  initialSecret,
  onDelete,
  onChanged,
}: {
  webhook: Webhook;
  initialSecret?: string;
  onDelete: (w: Webhook) => void;
  onChanged: () => Promise<void>;
}) {
  const { canWrite } = useSession();
  const [showLog, setShowLog] = useState(false);
  const [editing, setEditing] = useState(false);
  const logId = `log-${webhook.webhookId}`;
  const eventsId = `edit-events-${webhook.webhookId}`;
  return (
    <li class="card webhook" data-webhook={webhook.name}>
      <div class="card-head">
        <h3>{webhook.name}</h3>
        {canWrite && (
          <button type="button" class="danger small" onClick={() => onDelete(webhook)} aria-label={`Delete webhook ${webhook.name}`}>
            Delete
          </button>
        )}
      </div>
      <p class="break">
        <code>{webhook.url}</code>
      </p>
      <p class="muted">Added {formatTime(webhook.createdAt)}</p>
      <p data-testid="webhook-events">
        Receives:{" "}
        {webhook.events.map((event, i) => (
          <span key={event}>
            {i > 0 && ", "}
            <code>{event}</code>
          </span>
        ))}
      </p>
      <p data-testid="webhook-batch">Delivery: {describeBatch(webhook.batch)}</p>
      {canWrite && (
        <>
          <button type="button" class="link" aria-expanded={editing} aria-controls={eventsId} onClick={() => setEditing(!editing)}>
            {editing ? "Close events" : "Change events"}
          </button>
          <div id={eventsId}>{editing && <EditEvents webhook={webhook} onSaved={onChanged} />}</div>
        </>
      )}
      <DisabledNotice webhook={webhook} onEnabled={onChanged} />
      <Secret webhook={webhook} initial={initialSecret} />
      {canWrite && <TestReceipt webhook={webhook} />}
      <button type="button" class="link" aria-expanded={showLog} aria-controls={logId} onClick={() => setShowLog(!showLog)}>
        {showLog ? "Hide delivery log" : "Show delivery log"}
      </button>
      <div id={logId}>{showLog && <DeliveryLog webhook={webhook} />}</div>
    </li>
  );
}

export function Webhooks() {
  const { client, canWrite } = useSession();
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEventType[]>(RECEIPT_EVENTS);
  const [batch, setBatch] = useState<BatchSetting>(null);
  const [notice, setNotice] = useNotice();
  const [fresh, setFresh] = useState<{ webhookId: string; secret: string } | undefined>();
  const [deleting, setDeleting] = useState<Webhook | undefined>();
  const [adding, setAdding] = useState(false);
  const hooks = useAsync(async () => (await ok(client.GET("/api/v1/webhooks"))).data, []);
  const add = useAction(async () => {
    const created = await ok(client.POST("/api/v1/webhooks", { body: { name, url, events, batch } }));
    setName("");
    setUrl("");
    setEvents(RECEIPT_EVENTS);
    setBatch(null);
    setFresh({ webhookId: created.webhookId, secret: created.secret });
    setNotice(`Webhook “${created.name}” added. Its signing secret is shown below; you can reveal it again at any time.`);
    await hooks.reload();
  });
  return (
    <section>
      <h1 tabIndex={-1}>Settings → Webhooks</h1>
      <p class="muted">
        Each webhook is posted the events it subscribes to, signed: the receipts of a message's status changes (sent, delivered, failed,
        undelivered), messages received, and opt-outs and opt-ins.
      </p>
      {canWrite && (
        <>
          <ToggledPanel label="New webhook" id="new-webhook-panel" open={adding} onToggle={setAdding}>
            <TitledForm titleId="new-webhook-title" title="Add a webhook" onSubmit={() => void add.run()}>
              <div class="grid-2">
                <InputField id="webhook-name" label="Name" required maxLength={100} {...bound(name, setName, add.error, "/body/name")} />
                <InputField
                  id="webhook-url"
                  label="URL"
                  hint="https:// and a public address"
                  type="url"
                  required
                  {...bound(url, setUrl, add.error, "/body/url")}
                />
              </div>
              <EventChoice id="webhook-events" events={events} onChange={setEvents} />
              <BatchChoice id="webhook-batch" batch={batch} onChange={setBatch} />
              <SubmitRow action={add} failed="Webhook not added" disabled={events.length === 0}>
                Add webhook
              </SubmitRow>
            </TitledForm>
          </ToggledPanel>
        </>
      )}
      {notice && <Notice>{notice}</Notice>}
      <ProblemMessage error={hooks.error} />
      {!hooks.data && hooks.loading && <Loading what="webhooks" />}
      {hooks.data?.length === 0 && <p class="muted">No webhooks yet.</p>}
      {hooks.data?.some((w) => w.disabledAt) && (
        <p class="notice notice-bad" role="alert">
          {hooks.data.filter((w) => w.disabledAt).length === 1
            ? "One webhook is"
            : `${hooks.data.filter((w) => w.disabledAt).length} webhooks are`}{" "}
          disabled after failing for a long time: fix the receiver, then enable it below.
        </p>
      )}
      {hooks.data && hooks.data.length > 0 && (
        <ul class="cards" aria-label="Webhooks">
          {hooks.data.map((w) => (
            <WebhookCard
              key={w.webhookId}
              webhook={w}
              initialSecret={fresh?.webhookId === w.webhookId ? fresh.secret : undefined}
              onDelete={setDeleting}
              onChanged={hooks.reload}
            />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={!!deleting}
        title={`Delete webhook “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete webhook"
        danger
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          await ok(client.DELETE("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId: deleting!.webhookId } } }));
          setNotice(`Webhook “${deleting!.name}” deleted: it gets no more receipts.`);
          await hooks.reload();
        }}
      >
        <p>Receipts stop going to {deleting?.url}. Its delivery log is deleted with it.</p>
      </ConfirmDialog>
    </section>
  );
}
