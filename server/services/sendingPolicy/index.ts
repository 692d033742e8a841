// The sending policy at send time (docs/API.md, "Sending policy"), for the messages of a send window that the
// claim's fast path left alone because the policy applies to them (db/sendingPolicy.ts):
// 1. quiet hours: a marketing message due inside its recipient's quiet window is held until the window ends;
// 2. throughput: over the account's (or the link's) cap in segments per second, a message waits its turn.
// Each message is either admitted (claimed and sent now, in this window) or held (its job waits, the message
// stays `scheduled` and cancellable).
import type { Db } from "../../db/knex.js";
import type { MessageKey } from "../../db/messages/index.js";
import { policyFacts } from "../../db/sendingPolicy.js";
import { quietHoursStage } from "./quietHoursStage.js";
import { throughputStage } from "./throughputStage.js";
import type { Hold, PolicyContext, PolicyDecision, PolicyStage, SendingPolicyOptions } from "./types.js";

export type { Hold, PolicyDecision, SendingPolicyOptions } from "./types.js";
export { throughputLookaheadMs, throughputPacer } from "./throughputPacer.js";

export async function applySendingPolicy(db: Db, keys: MessageKey[], opts: SendingPolicyOptions): Promise<PolicyDecision> {
  const held = new Map<string, Hold>();
  let passing = await policyFacts(db, keys, opts.linkMaxSegmentsPerSecond !== null);
  const accountOf = new Map(keys.map((k) => [k.id, k.accountId]));
  const now = opts.clock?.() ?? new Date();
  const offsetMs = now.getTime() - Date.now();
  const ctx: PolicyContext = { now, toJobTime: (at) => new Date(at.getTime() - offsetMs), opts, accountOf };
  for (const stage of STAGES) passing = await stage(db, passing, held, ctx);
  return { admitted: passing.map((m) => m.id), held };
}

// Quiet hours, then throughput: a message held by quiet hours takes no share of the cap.
const STAGES: PolicyStage[] = [quietHoursStage, throughputStage];
