// A claimed window sent by the routing table (docs/ROUTING.md, "Failover"): each message judged against its
// route now, written to its first candidate, and, when that connector refuses it, to the next (each once).
// Before each write the message records where it goes and that it is on the wire (connector, link and
// submitted_at, one statement per round, after every wait), so a crash or a dropped link leaves an unknown
// outcome that names the right link, and a crash before it leaves a message certainly never written. An unknown outcome is never
// failed over: written and unanswered, the carrier may have it. A connector that was not written to (not bound,
// or throttled past the wait) passes the message on too: not bound, to any other candidate; throttled, only
// within the route's pool, never to its fallback.
import type { Db } from "../db/knex.js";
import { assignConnectors, recordAttempts, type OwnedMessageRow, type SendAttemptRow } from "../db/messages/index.js";
import { capsAfterRouting } from "../domain/throughput.js";
import { payOrTakeTurns } from "../db/capTurns.js";
import { connectorSegments, connectorSubmits } from "./connectorMetrics.js";
import type { RoutedConnector, SendRouter } from "./connectorSet.js";
import { ProviderUnavailable, submitAll, type OutboundMessage, type SubmitResult } from "./types.js";

/** Routed to a connector whose sessions other workers hold: the message goes to them (its job pinned to it). */
export class HandedOff {
  constructor(
    readonly connectorId: string,
    readonly name: string,
  ) {}
}

/** `lease_lost`: not written, the job being another worker's now (assignConnectors marked nothing). */
export type RoutedResult = SubmitResult | Error | HandedOff | "no_route" | "no_connector" | "lease_lost";

/** One claimed message on its way along its route: the candidates left, the one it is at, its attempts, its result. */
interface RoutedSend {
  readonly message: OwnedMessageRow;
  readonly outbound: OutboundMessage;
  readonly candidates: Candidate[];
  /** Index in `candidates` of the connector it goes to next. */
  at: number;
  /** Attempts of an earlier worker (before it handed the message on) count: a connector that refused it is not tried again. */
  readonly attempts: SendAttemptRow[];
  result: RoutedResult;
}

type Candidate = RoutedConnector & { pool: boolean };

/** The provider's answer for each message (by id), or why it was not written anywhere. */
export async function submitRouted(
  db: Db,
  router: SendRouter,
  claimed: { message: OwnedMessageRow; outbound: OutboundMessage }[],
  workerId: string,
): Promise<Map<string, RoutedResult>> {
  const sends: RoutedSend[] = claimed.map(({ message, outbound }) => {
    const attempts = [...(message.attempts ?? [])];
    const plan = router.plan({
      to: message.to,
      from: message.from,
      accountId: message.accountId,
      category: message.category,
      priority: message.priority,
    });
    const refused = new Set(attempts.filter((a) => a.error !== null).map((a) => a.connectorId));
    const candidates = plan ? plan.candidates.filter((c) => !refused.has(c.connectorId!)) : [];
    let result: RoutedResult = plan ? "no_connector" : "no_route";
    const last = attempts.findLast((a) => a.error !== null)?.error;
    // Every candidate refused it already (on the workers before this one): failed with the last refusal.
    if (plan && candidates.length === 0 && last) result = { accepted: false, code: last.code, message: last.message };
    return { message, outbound, candidates, at: 0, attempts, result };
  });
  let pending = sends.filter((s) => s.candidates.length > 0);
  while (pending.length > 0) {
    const at = new Date().toISOString();
    const target = (s: RoutedSend) => s.candidates[s.at]!;
    for (const s of pending) if (target(s).remote) s.result = new HandedOff(target(s).connectorId!, target(s).name);
    pending = pending.filter((s) => !target(s).remote);
    const groups = new Map<string, { connector: RoutedConnector; sends: RoutedSend[] }>();
    for (const s of pending) {
      const c = target(s);
      const g = groups.get(c.connectorId!) ?? { connector: c, sends: [] };
      g.sends.push(s);
      groups.set(c.connectorId!, g);
    }
    // Every wait first (a capped connector's slots, the link's rate), then the on-the-wire mark, then the writes
    // at once: a worker that dies in between leaves its messages unmarked, and so sent again, not failed. A
    // connector's window goes in parts, each marked and written when the link's rate lets all of it go: the
    // first message of a burst is written at once, not after the burst's whole share of the rate (issue 59).
    await Promise.all(
      [...groups.values()].map(async ({ connector, sends: group }) => {
        const writing = await takeCapTurns(db, connector, group);
        const unwritten = group.filter((s) => !writing.includes(s));
        const entry = (s: RoutedSend, write: boolean) => ({
          id: s.message.id,
          accountId: s.message.accountId,
          connectorId: connector.connectorId!,
          link: connector.provider.link,
          write,
        });
        const writes: Promise<void>[] = [];
        const parts = await writeParts(connector.provider, writing);
        for (const [k, part] of parts.entries()) {
          const wait = part.readyAt - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          // Those its cap turned away record their connector with the first part (makeCappedSendsDue reads it).
          const others = k === 0 ? unwritten.map((s) => entry(s, false)) : [];
          const marked = await assignConnectors(db, [...others, ...part.sends.map((s) => entry(s, true))], workerId);
          // Not marked: the job is another worker's now (this one lost its lease); it is theirs to send.
          for (const s of part.sends) if (!marked.has(s.message.id)) s.result = "lease_lost";
          const ready = part.sends.filter((s) => marked.has(s.message.id));
          if (ready.length > 0) writes.push(writeAndCount(connector, ready));
        }
        if (parts.length === 0 && unwritten.length > 0)
          await assignConnectors(
            db,
            unwritten.map((s) => entry(s, false)),
            workerId,
          );
        await Promise.all(writes);
      }),
    );
    pending = pending.filter((s) => {
      const { result } = s;
      const tried = target(s);
      if (typeof result === "string" || result instanceof HandedOff) return false;
      if (!(result instanceof ProviderUnavailable))
        s.attempts.push({
          connectorId: tried.connectorId!,
          at,
          error: result instanceof Error || result.accepted ? null : { code: result.code, message: result.message },
        });
      const refused = result instanceof ProviderUnavailable || (!(result instanceof Error) && !result.accepted);
      if (!refused) return false;
      // The next candidate it may go to: throttled, only within the pool.
      const n = result instanceof ProviderUnavailable && result.throttled ? nextInPool(s.candidates, s.at) : s.at + 1;
      if (n === undefined || n >= s.candidates.length) return false;
      s.at = n;
      return true;
    });
  }
  // Kept when there is more than the one attempt `connectorId` tells, or for the worker a message is handed to.
  await recordAttempts(
    db,
    sends.flatMap((s) => {
      const changed = s.attempts.length > (s.message.attempts?.length ?? 0);
      return changed && (s.attempts.length > 1 || s.result instanceof HandedOff)
        ? [{ id: s.message.id, accountId: s.message.accountId, attempts: s.attempts }]
        : [];
    }),
  );
  return new Map(sends.map((s) => [s.message.id, s.result]));
}

/**
 * A capped connector's turns for its group: the messages that got a slot within CAP_LOOKAHEAD_S (after waiting
 * for the latest of them), the others given ProviderUnavailable to be tried on the next connector of the pool
 * or to wait for their turn.
 */
async function takeCapTurns(db: Db, connector: RoutedConnector, group: RoutedSend[]): Promise<RoutedSend[]> {
  const [cap] = capsAfterRouting({ connectorId: connector.connectorId!, maxSegmentsPerSecond: connector.cap });
  if (!cap) return group;
  const taken = await payOrTakeTurns(
    db,
    cap,
    group.map((s) => ({
      id: s.outbound.messageId,
      segments: s.outbound.segments,
      waits: nextInPool(s.candidates, s.at) === undefined,
    })),
    CAP_LOOKAHEAD_S,
  );
  for (const s of group) {
    if (taken.slots.has(s.outbound.messageId)) continue;
    // Not waiting (0): tried at once on the next connector of the route's pool.
    const wakeAt = taken.wakeAtMs.get(s.outbound.messageId);
    const retryAfterMs = wakeAt === undefined ? 0 : Math.max(10, wakeAt - Date.now());
    s.result = new ProviderUnavailable(`connector ${connector.name} at its cap`, retryAfterMs, true);
  }
  const waitMs = (Math.max(taken.now, ...taken.slots.values()) - taken.now) * 1000;
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  return group.filter((s) => taken.slots.has(s.outbound.messageId));
}

/** How much of the link's rate one part of a window spans: its messages are marked and written together. */
const PART_SPAN_MS = 100;

/**
 * The window cut where the link's rate spaces it (each part's messages may all be written once `readyAt`
 * comes): one part where the rate lets the whole window go at once, or the provider has no slots to say.
 */
async function writeParts(provider: RoutedConnector["provider"], sends: RoutedSend[]): Promise<{ sends: RoutedSend[]; readyAt: number }[]> {
  if (sends.length === 0) return [];
  if (!provider.reserveSlots) {
    await provider.beforeClaim?.(sends.length);
    return [{ sends, readyAt: 0 }];
  }
  const slots = provider.reserveSlots(sends.length);
  const parts: { sends: RoutedSend[]; readyAt: number }[] = [];
  let from = 0;
  for (let i = 1; i <= sends.length; i++) {
    if (i < sends.length && slots[i]! - slots[from]! < PART_SPAN_MS) continue;
    parts.push({ sends: sends.slice(from, i), readyAt: slots[i - 1]! });
    from = i;
  }
  return parts;
}

/** Writes messages marked on the wire to their connector and records each answer. */
async function writeAndCount(connector: RoutedConnector, sends: RoutedSend[]): Promise<void> {
  const answers = await submitAll(
    connector.provider,
    sends.map((s) => s.outbound),
  );
  sends.forEach((s, k) => (s.result = answers[k]!));
  countAnswers(
    connector,
    sends.map((s) => ({ answer: s.result as SubmitResult | Error, segments: s.outbound.segments })),
  );
}

/** The candidate after `at` that a throttled message may move to (one of the route's pool), if any. */
function nextInPool(candidates: { pool: boolean }[], at: number): number | undefined {
  let n = at + 1;
  while (n < candidates.length && !candidates[n]!.pool) n++;
  return n < candidates.length ? n : undefined;
}

/** How far ahead a capped connector's slots are taken: the window's messages wait at most this for theirs. */
const CAP_LOOKAHEAD_S = 0.05;

/** Each answer counted on its connector: the process's metrics and the worker's tally (shown by the API). */
export function countAnswers(connector: RoutedConnector, answers: { answer: SubmitResult | Error; segments: number }[]): void {
  // Counted per status first: the metric is bumped once per status and window, not once per message.
  const byStatus = new Map<string, number>();
  let accepted = 0;
  for (const { answer: a, segments } of answers) {
    const status = a instanceof ProviderUnavailable ? "unavailable" : a instanceof Error ? "unknown" : a.accepted ? "ok" : a.code;
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (status === "ok") accepted += segments;
  }
  connector.tally.accepted += byStatus.get("ok") ?? 0;
  connector.tally.unknown += byStatus.get("unknown") ?? 0;
  for (const [status, n] of byStatus) {
    if (status !== "ok" && status !== "unknown" && status !== "unavailable") connector.tally.refused += n;
    connectorSubmits.inc({ connector: connector.name, status }, n);
  }
  if (accepted > 0) connectorSegments.inc({ connector: connector.name }, accepted);
}
