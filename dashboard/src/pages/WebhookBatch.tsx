// How a webhook is posted its events: one POST per event (the default), or batches of `{ "events": [ … ] }`
// (docs/WEBHOOKS.md, "Batches"). The choice of the add and edit forms, and the line each webhook card shows.
import type { Webhook } from "../api.js";

export type BatchSetting = Webhook["batch"];

/** A webhook's delivery, in words. */
export function describeBatch(batch: BatchSetting): string {
  if (!batch) return "one POST per event";
  return `batches of up to ${batch.maxEvents} events, the oldest waiting at most ${batch.maxDelayMs} ms`;
}

/** The batching fields: off, or maxEvents (1–1000) and maxDelayMs (0–60000). */
export function BatchChoice({ id, batch, onChange }: { id: string; batch: BatchSetting; onChange: (batch: BatchSetting) => void }) {
  const current = batch ?? { maxEvents: 500, maxDelayMs: 1000 };
  return (
    <fieldset class="events">
      <legend>Delivery</legend>
      <label class="inline" for={`${id}-on`}>
        <input id={`${id}-on`} type="checkbox" checked={!!batch} onChange={(e) => onChange(e.currentTarget.checked ? current : null)} />{" "}
        Post events in batches (one signed POST of <code>{'{ "events": [ … ] }'}</code> for many events)
      </label>
      {batch && (
        <div class="grid-2">
          <div class="field">
            <label for={`${id}-max-events`}>Events per batch, at most</label>
            <input
              id={`${id}-max-events`}
              type="number"
              min={1}
              max={1000}
              required
              value={batch.maxEvents}
              onInput={(e) => onChange({ ...batch, maxEvents: e.currentTarget.valueAsNumber })}
            />
          </div>
          <div class="field">
            <label for={`${id}-max-delay`}>Longest wait of the oldest event (ms)</label>
            <input
              id={`${id}-max-delay`}
              type="number"
              min={0}
              max={60000}
              required
              value={batch.maxDelayMs}
              onInput={(e) => onChange({ ...batch, maxDelayMs: e.currentTarget.valueAsNumber })}
            />
          </div>
        </div>
      )}
    </fieldset>
  );
}
