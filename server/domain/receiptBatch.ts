// The body and the id of a batch of webhook events (docs/WEBHOOKS.md, "Batches"). Pure: the collector
// (jobs/receiptBatches.ts) posts what these make.
import { createHash } from "node:crypto";

export interface BatchEvent {
  id: string;
  messageId: string | null;
  seq: number;
  /** The event's stored JSON: an object, exactly as a one-per-event delivery posts it. */
  body: string;
}

/**
 * The events oldest first, except that a message's events keep their status order (seq) among the places its
 * events take: two status changes of one message committed out of order cannot reach the receiver so.
 */
export function inStatusOrder<E extends BatchEvent>(events: E[]): E[] {
  const places = new Map<string, number[]>();
  events.forEach((e, i) => e.messageId && places.set(e.messageId, [...(places.get(e.messageId) ?? []), i]));
  const ordered = [...events];
  for (const at of places.values()) {
    if (at.length < 2) continue;
    const bySeq = at.map((i) => events[i]!).sort((a, b) => a.seq - b.seq);
    at.forEach((place, k) => (ordered[place] = bySeq[k]!));
  }
  return ordered;
}

/**
 * `{"events":[…]}`: each event's stored bytes with `"deliveryId":"<id>"` as its first field, the id a
 * one-per-event delivery sends as X-Webhook-Id, so a receiver tells repeats the same way in both.
 */
export function batchBody(events: BatchEvent[]): string {
  return `{"events":[${events.map((e) => `{"deliveryId":${JSON.stringify(e.id)}${e.body.length > 2 ? "," : ""}${e.body.slice(1)}`).join(",")}]}`;
}

/** The batch's X-Webhook-Id: a UUID made from its events' ids, so the same events are the same batch. */
export function batchId(events: { id: string }[]): string {
  const h = createHash("sha256")
    .update(events.map((e) => e.id).join(","))
    .digest("hex");
  // Version 8 (RFC 9562, vendor-specific), variant 10.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
