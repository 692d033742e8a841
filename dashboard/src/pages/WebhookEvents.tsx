// The events a webhook subscribes to: the checkboxes of the add form, and changing them (and its batching) on
// an existing webhook.
import { useState } from "preact/hooks";
import { ok, WEBHOOK_EVENTS, type Webhook, type WebhookEventType } from "../api.js";
import { Notice, ProblemMessage, useAction, useNotice, useSession } from "../ui.js";
import { BatchChoice, type BatchSetting } from "./WebhookBatch.js";

/** The event checkboxes of the add and edit forms; the API wants at least one. */
export function EventChoice({
  id,
  events,
  onChange,
}: {
  id: string;
  events: WebhookEventType[];
  onChange: (events: WebhookEventType[]) => void;
}) {
  return (
    <fieldset class="events">
      <legend>Events</legend>
      {WEBHOOK_EVENTS.map(({ event, label }) => (
        <label key={event} class="inline" for={`${id}-${event}`}>
          <input
            id={`${id}-${event}`}
            type="checkbox"
            checked={events.includes(event)}
            onChange={(e) =>
              onChange(
                e.currentTarget.checked
                  ? WEBHOOK_EVENTS.map((x) => x.event).filter((x) => x === event || events.includes(x))
                  : events.filter((x) => x !== event),
              )
            }
          />{" "}
          {label} <code>{event}</code>
        </label>
      ))}
      {events.length === 0 && <small class="field-error">Choose at least one event.</small>}
    </fieldset>
  );
}

export function EditEvents({ webhook, onSaved }: { webhook: Webhook; onSaved: () => Promise<void> }) {
  const { client } = useSession();
  const [events, setEvents] = useState<WebhookEventType[]>(webhook.events);
  const [batch, setBatch] = useState<BatchSetting>(webhook.batch);
  const [saved, setSaved] = useNotice<boolean>();
  const save = useAction(async () => {
    setSaved(undefined);
    await ok(client.PATCH("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.webhookId } }, body: { events, batch } }));
    setSaved(true);
    await onSaved();
  });
  return (
    <form
      aria-label={`Events of ${webhook.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <EventChoice id={`events-${webhook.webhookId}`} events={events} onChange={setEvents} />
      <BatchChoice id={`batch-${webhook.webhookId}`} batch={batch} onChange={setBatch} />
      <ProblemMessage error={save.error} prefix="Events not saved" />
      {saved && <Notice>Events saved.</Notice>}
      <div class="actions">
        <button type="submit" disabled={save.busy || events.length === 0} aria-label={`Save events of ${webhook.name}`}>
          Save events
        </button>
      </div>
    </form>
  );
}
