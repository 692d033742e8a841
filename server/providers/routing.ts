// A claimed window sent by the routing table (docs/ROUTING.md, "Failover"): each message judged against its
// route now, written to its first candidate, and, when that connector refuses it, to the next (each once).
// Before each write the message records where it goes (connector and link, one statement per round), so a
// crash or a dropped link leaves an unknown outcome that names the right link. An unknown outcome is never
// failed over: written and unanswered, the carrier may have it. A connector that was not written to (not bound,
// or throttled past the wait) passes the message on too: not bound, to any other candidate; throttled, only
// within the route's pool, never to its fallback.
import type { Db } from "../db/knex.js";
import { assignConnectors, recordAttempts, type OwnedMessageRow, type SendAttemptRow } from "../db/messages/index.js";
import { connectorSegments, connectorSubmits } from "./connectorMetrics.js";
import type { RoutedConnector, SendRouter } from "./connectors.js";
import { ProviderUnavailable, submitAll, type OutboundMessage, type SubmitResult } from "./types.js";

export type RoutedResult = SubmitResult | Error | "no_route" | "no_connector";

/** One result per message, in order: the provider's answer, or why it was not written anywhere. */
export async function submitRouted(
  db: Db,
  router: SendRouter,
  claimed: OwnedMessageRow[],
  outbound: OutboundMessage[],
): Promise<RoutedResult[]> {
  const results: RoutedResult[] = claimed.map(() => "no_connector");
  const attempts: SendAttemptRow[][] = claimed.map(() => []);
  const plans = claimed.map((m) =>
    router.plan({ to: m.to, from: m.from, accountId: m.accountId, category: m.category, priority: m.priority }),
  );
  const next = claimed.map(() => 0);
  let pending = plans.flatMap((plan, i) => {
    if (!plan) results[i] = "no_route";
    return plan && plan.candidates.length > 0 ? [i] : [];
  });
  while (pending.length > 0) {
    const at = new Date().toISOString();
    const target = (i: number) => plans[i]!.candidates[next[i]!]!;
    await assignConnectors(
      db,
      pending.map((i) => ({
        id: claimed[i]!.id,
        accountId: claimed[i]!.accountId,
        connectorId: target(i).connectorId!,
        link: target(i).provider.link,
      })),
    );
    const groups = new Map<string, { connector: RoutedConnector; indexes: number[] }>();
    for (const i of pending) {
      const c = target(i);
      const g = groups.get(c.connectorId!) ?? { connector: c, indexes: [] };
      g.indexes.push(i);
      groups.set(c.connectorId!, g);
    }
    await Promise.all(
      [...groups.values()].map(async ({ connector, indexes }) => {
        const answers = await submitAll(
          connector.provider,
          indexes.map((i) => outbound[i]!),
        );
        answers.forEach((answer, k) => (results[indexes[k]!] = answer));
        countAnswers(
          connector.name,
          answers,
          indexes.map((i) => outbound[i]!.segments),
        );
      }),
    );
    pending = pending.filter((i) => {
      const result = results[i]!;
      const tried = target(i);
      if (typeof result === "string") return false;
      if (!(result instanceof ProviderUnavailable))
        attempts[i]!.push({
          connectorId: tried.connectorId!,
          at,
          error: result instanceof Error || result.accepted ? null : { code: result.code, message: result.message },
        });
      const refused = result instanceof ProviderUnavailable || (!(result instanceof Error) && !result.accepted);
      if (!refused) return false;
      // The next candidate it may go to: throttled, only within the pool.
      const candidates = plans[i]!.candidates;
      let n = next[i]! + 1;
      while (n < candidates.length && result instanceof ProviderUnavailable && result.throttled && !candidates[n]!.pool) n++;
      if (n >= candidates.length) return false;
      next[i] = n;
      return true;
    });
  }
  await recordAttempts(
    db,
    claimed.flatMap((m, i) => (attempts[i]!.length > 1 ? [{ id: m.id, accountId: m.accountId, attempts: attempts[i]! }] : [])),
  );
  return results;
}

/** Each answer counted on its connector. */
export function countAnswers(connector: string, answers: (SubmitResult | Error)[], segments: number[]): void {
  let accepted = 0;
  answers.forEach((a, i) => {
    const status = a instanceof ProviderUnavailable ? "unavailable" : a instanceof Error ? "unknown" : a.accepted ? "ok" : a.code;
    if (status === "ok") accepted += segments[i]!;
    connectorSubmits.inc({ connector, status });
  });
  if (accepted > 0) connectorSegments.inc({ connector }, accepted);
}
