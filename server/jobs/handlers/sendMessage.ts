// Sends scheduled messages at their time, a claimed batch one window at a time (docs/RELIABILITY.md, "A crash
// costs at most what was on the wire").
//
// Per window of at most `provider.window.size` messages:
// 1. Take the window's slots (and the provider's rate for them), then claim: scheduled → sending with the
//    on-the-wire mark, ONE statement, committed just before the PDUs are written (a routed window: marked by
//    assignConnectors, providers/failover.ts). Cancel is the same conditional UPDATE on the same row, so exactly
//    one wins; messages of later windows stay `scheduled` (cancellable) until their turn.
// 2. Submit to the provider.
// 3. Record the answers (sent, failed, back to scheduled when certainly not handed over), then free the slots:
// a worker has at most the window's messages in `sending` at any time. Unknown outcomes: the link dropped after a PDU was written, or the job was rescued after a crash and finds
// its message in `sending`. Sending again could deliver it twice, so it is not sent again: its outcome is
// declared unknown and it stays `sending` (shown as `scheduled`) for SEND_OUTCOME_RESOLVE_MS, the job snoozed
// until then. A matching receipt resolves it (services/unknownOutcomes.ts); else it is `failed` / `send_outcome_unknown`.
import { markCampaignsSending } from "../../db/campaigns.js";
import type { Db } from "../../db/knex.js";
import {
  claimMessagesForSending,
  findMessages,
  markOutcomesUnknown,
  returnToScheduled,
  returnUnresolvedToScheduled,
  returnUnwrittenToScheduled,
  type MessageKey,
  type OwnedMessageRow,
} from "../../db/messages/index.js";
import { failMessagesToOptedOut } from "../../services/optOuts.js";
import { chooseSenders } from "../../routing/index.js";
import { failMessagesFromUnheldSenders, scheduledOfPausedCampaigns, scheduledOfSuspendedAccounts } from "../../services/sendingGuards.js";
import { applySendingPolicy, type PolicyDecision, type SendingPolicyOptions } from "../../services/sendingPolicy/index.js";
import { failMessagesPastValidity } from "../../services/validity.js";
import { changeMessageStatuses, type MessageFacts, type StatusChange } from "../../services/statusChanges.js";
import { resolveUnknownOutcomes } from "../../services/unknownOutcomes.js";
import { fixedRouter, type RoutedConnector, type SendRouter } from "../../providers/connectorSet.js";
import { countAnswers, HandedOff, submitRouted, type RoutedResult } from "../../providers/failover.js";
import { outboundOf, ProviderUnavailable, submitAll, type Provider } from "../../providers/types.js";
import type { JobRow } from "../../db/jobs/index.js";
import { Snooze, type BatchJobHandler, type JobContext } from "../types.js";

/** How often a suspended account's waiting message looks again whether the account was reinstated. */
export const SUSPENDED_RECHECK_MS = 15_000;
/** How often a message waiting for a connector looks again (a connector bound, the table changed). */
export const CONNECTOR_RECHECK_MS = 1_000;
export const NO_SENDER = {
  code: "sender_pool_deleted",
  message: "The message's sender pool was deleted (or none of its senders may be used any more) before a sender was chosen.",
};
export const NO_ROUTE = { code: "no_route", message: "No route of the routing table matches the message." };
export const OUTCOME_UNKNOWN = {
  code: "send_outcome_unknown",
  message:
    "The worker stopped or the link dropped while the message was with the provider, and no receipt told what became of it; it was not sent again.",
};

export interface SendOptions {
  /** How long an unknown outcome waits for a matching receipt before it becomes failed. */
  resolveMs: number;
  /**
   * An unknown outcome still unresolved then: failed, or (for a link that receipts everything it accepts)
   * taken as never received and sent again, once.
   */
  unresolved?: "fail" | "resend";
  /** The sending policy's service-wide settings. */
  policy: SendingPolicyOptions;
}

/**
 * Test keys' messages (payload `test`) go to `testProvider`, the simulator, whatever the deployment's
 * carriers: a batch is split in two, each sent as its own SendBatch.
 */
export function sendMessageHandler(
  db: Db,
  router: SendRouter,
  opts: SendOptions,
  testProvider?: Provider,
): BatchJobHandler<"send_message"> {
  const testRouter = testProvider && fixedRouter(testProvider);
  return {
    batch: async (jobs, ctx) => {
      const tests = testRouter ? jobs.flatMap((j, i) => (j.payload.test ? [i] : [])) : [];
      if (tests.length === 0) return new SendBatch(db, router, opts, jobs, ctx).run();
      const outcomes: (Error | undefined)[] = jobs.map(() => undefined);
      const real = jobs.flatMap((j, i) => (j.payload.test ? [] : [i]));
      const part = async (indexes: number[], via: SendRouter) => {
        const sub: JobContext = { ...ctx, settle: (i, outcome) => ctx.settle(indexes[i]!, outcome) };
        const results = await new SendBatch(
          db,
          via,
          opts,
          indexes.map((i) => jobs[i]!),
          sub,
        ).run();
        results.forEach((r, i) => (outcomes[indexes[i]!] = r));
      };
      await Promise.all([real.length > 0 ? part(real, router) : undefined, part(tests, testRouter!)]);
      return outcomes;
    },
  };
}

/**
 * One claimed batch of send jobs, in steps: each window claimed and submitted (claimWindow, submitWindow), then
 * what was not claimed settled (settleUnclaimed), then the unknown outcomes (settleUnknown). Returns one
 * outcome per job.
 */
class SendBatch {
  private readonly outcomes: (Error | undefined)[];
  private readonly jobIndex: Map<string, number>;
  private readonly accountOf: Map<string, string>;
  private readonly unknown = new Set<string>();
  private readonly unclaimed: string[] = [];
  private readonly linkCapped: boolean;

  constructor(
    private readonly db: Db,
    private readonly router: SendRouter,
    private readonly opts: SendOptions,
    private readonly jobs: JobRow<"send_message">[],
    private readonly ctx: JobContext,
  ) {
    this.outcomes = jobs.map(() => undefined);
    this.jobIndex = new Map(jobs.map((j, i) => [j.payload.messageId, i]));
    // Every statement names the messages' accounts (jobs.account_id). A job without one is of the previous
    // release and its message no longer exists: nothing to send.
    this.accountOf = new Map(jobs.flatMap((j) => (j.accountId === null ? [] : [[j.payload.messageId, j.accountId] as const])));
    this.linkCapped = opts.policy.linkMaxSegmentsPerSecond !== null;
  }

  /** Records the outcome of a message's job; `now` also hands it to the runner at once (its slot freed). */
  private settle(messageId: string, outcome: Error, opts: { now?: boolean } = {}): void {
    const i = this.jobIndex.get(messageId)!;
    this.outcomes[i] = outcome;
    if (opts.now) this.ctx.settle(i, outcome);
  }

  private keys(messageIds: string[]): MessageKey[] {
    return messageIds.map((id) => ({ id, accountId: this.accountOf.get(id)! }));
  }

  async run(): Promise<(Error | undefined)[]> {
    for (let rest = [...this.accountOf.keys()]; rest.length > 0;) {
      const { count, release } = await this.router.window.acquire(rest.length);
      const window = rest.slice(0, count);
      rest = rest.slice(count);
      try {
        // One connector takes every message now (one catch-all route): the claim records it. Else each
        // message is routed once claimed (providers/failover.ts).
        const target = this.router.fixed();
        const claimed = await this.withSenders(await this.claimWindow(window, target));
        if (claimed.length > 0) await this.submitWindow(claimed, target);
      } finally {
        release();
      }
    }
    await this.settleUnclaimed();
    if (this.unknown.size > 0) await this.settleUnknown();
    return this.outcomes;
  }

  /** scheduled → sending for the window's messages the policy lets go now, in claim order. */
  private async claimWindow(window: string[], target: RoutedConnector | undefined): Promise<OwnedMessageRow[]> {
    const { db } = this;
    const provider = target?.provider;
    const to = target ? { link: target.provider.link, connectorId: target.connectorId } : null;
    // The policy decides first where a message it holds must take no share of anything: over a paced link
    // (SMPP's beforeClaim waits for the window's share of the link's rate before the claim) and with a cap
    // on the whole link (nothing goes by the fast path unchecked). Elsewhere the fast path claims first and
    // the policy sees only what it left, so no policy costs no extra round trip.
    const policyFirst = this.linkCapped || provider?.beforeClaim !== undefined;
    let decision = policyFirst ? await this.decide(window) : undefined;
    const toClaim = decision ? window.filter((id) => !decision!.held.has(id)) : window;
    await provider?.beforeClaim?.(toClaim.length);
    const claimed = this.linkCapped ? [] : await claimMessagesForSending(db, this.keys(toClaim), to);
    const claimedIds = new Set(claimed.map((m) => m.id));
    const left = toClaim.filter((id) => !claimedIds.has(id));
    if (left.length > 0) {
      // Left by the fast path: the sending policy decides those it applies to (sent in this window, or held).
      decision ??= await this.decide(left);
      const cleared = await claimMessagesForSending(db, this.keys(decision.admitted), to, { policyChecked: true });
      for (const m of cleared) claimedIds.add(m.id);
      claimed.push(...cleared);
      this.unclaimed.push(...left.filter((id) => !claimedIds.has(id) && !decision!.held.has(id)));
    }
    // In claim order (priority, then due time: the jobs' order), not RETURNING's: the provider writes them
    // in the order given, and over SMPP a throttled one keeps that place (docs/SMPP.md, "Throttling").
    const place = new Map(window.map((id, i) => [id, i]));
    return claimed.sort((x, y) => place.get(x.id)! - place.get(y.id)!);
  }

  /**
   * The sending policy's decision on messages the fast path does not take. A held job is settled at once:
   * its slot is free, and the throughput pacer does not wait for its snooze.
   */
  private async decide(messageIds: string[]): Promise<PolicyDecision> {
    const decision = await applySendingPolicy(this.db, this.keys(messageIds), this.opts.policy);
    for (const [id, hold] of decision.held) this.settle(id, new Snooze(hold.until, hold.reason, hold.wake), { now: true });
    return decision;
  }

  /**
   * Messages of sender pools without a sender get one now (routing/senderPools.ts), before they are routed.
   * At their sender's cap they go back to wait for it; a pool deleted fails them. Returns those to send.
   */
  private async withSenders(claimed: OwnedMessageRow[]): Promise<OwnedMessageRow[]> {
    const pooled = claimed.filter((m) => m.senderPoolId !== null && m.from === "");
    if (pooled.length === 0) return claimed;
    const choices = await chooseSenders(
      this.db,
      pooled.map((m) => ({ id: m.id, accountId: m.accountId, to: m.to, senderPoolId: m.senderPoolId! })),
    );
    for (const m of pooled) m.from = choices.chosen.get(m.id) ?? m.from;
    for (const [id, until] of choices.waiting) this.settle(id, new Snooze(new Date(until), "waiting for its sender's cap"));
    if (choices.waiting.size > 0) await returnToScheduled(this.db, this.keys([...choices.waiting.keys()]));
    const at = new Date();
    await changeMessageStatuses(
      this.db,
      pooled.filter((m) => choices.noSender.has(m.id)).map((message) => ({ message, change: { status: "failed", at, error: NO_SENDER } })),
      { handoff: this.ctx.handoff("receipts") },
    );
    // The senders' slots are at most a lookahead away: the writes wait for the last of them.
    if (choices.lastSlot > choices.now) await new Promise((resolve) => setTimeout(resolve, (choices.lastSlot - choices.now) * 1000));
    return claimed.filter((m) => !choices.waiting.has(m.id) && !choices.noSender.has(m.id));
  }

  /** Hands the window to its connector(s) and records the answers. */
  private async submitWindow(claimed: OwnedMessageRow[], target: RoutedConnector | undefined): Promise<void> {
    const { db } = this;
    const sends = claimed.map((m) => ({ message: m, outbound: outboundOf(m) }));
    let results: Map<string, RoutedResult>;
    if (target) {
      // The provider answers each message in the order given.
      const answers = await submitAll(
        target.provider,
        sends.map((s) => s.outbound),
      );
      const answered = sends.map((s, k) => ({ ...s, answer: answers[k]! }));
      countAnswers(
        target,
        answered.map((a) => ({ answer: a.answer, segments: a.outbound.segments })),
      );
      results = new Map(answered.map((a) => [a.message.id, a.answer]));
    } else results = await submitRouted(db, this.router, sends, this.ctx.workerId);
    const at = new Date();
    const notTaken: string[] = [];
    const waiting: string[] = [];
    const changes: { message: MessageFacts; change: StatusChange }[] = [];
    for (const message of claimed) {
      const result = results.get(message.id)!;
      if (result === "lease_lost") {
        this.settle(message.id, new Snooze(new Date(), "lease lost before the write: another worker's now"));
      } else if (result === "no_route") {
        changes.push({ message, change: { status: "failed", at, error: NO_ROUTE } });
      } else if (result === "no_connector") {
        // No connector of its route is available: it waits (scheduled, cancellable) and looks again shortly.
        waiting.push(message.id);
        this.settle(message.id, new Snooze(new Date(Date.now() + CONNECTOR_RECHECK_MS), "waiting for a connector"));
      } else if (result instanceof HandedOff) {
        // Its connector's sessions are other workers': back to scheduled, its job pinned to that connector and
        // due now, which only a worker holding a bound session of it claims (docs/ROUTING.md, "Sessions").
        notTaken.push(message.id);
        const why = `handed to the workers holding connector ${result.name}`;
        this.settle(message.id, new Snooze(new Date(), why, true, result.connectorId));
      } else if (result instanceof ProviderUnavailable) {
        // Certainly not handed over: back to scheduled (cancellable again) and retried shortly.
        notTaken.push(message.id);
        this.settle(message.id, new Snooze(new Date(Date.now() + result.retryAfterMs), result.message));
      } else if (result instanceof Error) {
        this.ctx.log.warn({ err: result, messageId: message.id }, "provider call ended with an unknown outcome");
        this.unknown.add(message.id);
      } else if (result.accepted) {
        const { accepted: _, ...answer } = result; // the carrier's id, a multipart message's segment ids
        changes.push({ message, change: { status: "sent", at, ...answer } });
      } else {
        changes.push({ message, change: { status: "failed", at, error: { code: result.code, message: result.message } } });
      }
    }
    if (notTaken.length > 0) await returnToScheduled(db, this.keys(notTaken));
    if (waiting.length > 0) await returnToScheduled(db, this.keys(waiting), { waitingFor: "connector" });
    await changeMessageStatuses(db, changes, { handoff: this.ctx.handoff("receipts") });
    const campaigns = new Map(claimed.filter((m) => m.campaignId !== null).map((m) => [m.campaignId!, m.accountId]));
    await markCampaignsSending(
      db,
      [...campaigns].map(([id, accountId]) => ({ id, accountId })),
    );
  }

  /**
   * Not claimed: its recipient opted out, its validity ended or its account no longer holds its sender (failed
   * now), its account is suspended or its campaign paused (it waits), cancelled, already handled, left in
   * `sending` by a worker that died (an unknown outcome), or refused by a hold lifted since (judged again now).
   */
  private async settleUnclaimed(): Promise<void> {
    const { db, unclaimed } = this;
    const optedOut = unclaimed.length > 0 ? await failMessagesToOptedOut(db, this.keys(unclaimed)) : new Set<string>();
    const notOptedOut = unclaimed.filter((id) => !optedOut.has(id));
    const expired = notOptedOut.length > 0 ? await failMessagesPastValidity(db, this.keys(notOptedOut)) : new Set<string>();
    const valid = notOptedOut.filter((id) => !expired.has(id));
    const unheld = valid.length > 0 ? await failMessagesFromUnheldSenders(db, this.keys(valid)) : new Set<string>();
    const held = valid.filter((id) => !unheld.has(id));
    // An account the operator suspended: its messages wait (a job snoozed, the message scheduled) until reinstated.
    const suspended = held.length > 0 ? await scheduledOfSuspendedAccounts(db, this.keys(held)) : new Set<string>();
    for (const id of suspended) {
      this.settle(id, new Snooze(new Date(Date.now() + SUSPENDED_RECHECK_MS), "account suspended"));
    }
    const active = held.filter((id) => !suspended.has(id));
    const paused = active.length > 0 ? await scheduledOfPausedCampaigns(db, this.keys(active)) : new Map<string, Date>();
    for (const [id, at] of paused) this.settle(id, new Snooze(at, "campaign paused"));
    const rest = active.filter((id) => !paused.has(id));
    // Claimed (routed) but never marked on the wire: never written, sent again. Marked: an unknown outcome.
    const unwritten = new Set(await returnUnwrittenToScheduled(db, this.keys(rest)));
    for (const id of unwritten) this.settle(id, new Snooze(new Date(), "claimed, never written: sending it"));
    const marked = rest.filter((id) => !unwritten.has(id));
    const found = marked.length > 0 ? await findMessages(db, { keys: this.keys(marked) }) : [];
    const lifted = (m: (typeof found)[number]) => m.status === "scheduled" && m.jobId === this.jobs[this.jobIndex.get(m.id)!]!.id;
    for (const m of found) if (m.status === "sending") this.unknown.add(m.id);
    for (const m of found.filter(lifted)) this.settle(m.id, new Snooze(new Date(), "claim refused by a hold since lifted: judged again"));
  }

  /** Unknown outcomes: declared, resolved by a receipt if one came, else failed (or sent again) once due. */
  private async settleUnknown(): Promise<void> {
    const { db, opts, ctx } = this;
    const declaredAt = await markOutcomesUnknown(db, this.keys([...this.unknown]));
    const due = [...declaredAt].filter(([, at]) => at.getTime() + opts.resolveMs <= Date.now()).map(([id]) => id);
    await resolveUnknownOutcomes(db);
    if (due.length > 0) {
      // Nothing resolved them in time. With `resend`, no receipt means the carrier never got it (the worker
      // died between the claim and the write): sent again, once. Otherwise, or the second time, failed.
      const resent = opts.unresolved === "resend" ? new Set(await returnUnresolvedToScheduled(db, this.keys(due))) : new Set<string>();
      for (const id of resent) {
        ctx.log.warn({ messageId: id }, "send outcome unknown and no receipt came: taken as never received; sending it again");
        this.settle(id, new Snooze(new Date(), "unknown outcome unresolved: sending again"));
      }
      const still = (await findMessages(db, { keys: this.keys(due.filter((id) => !resent.has(id))) })).filter(
        (m) => m.status === "sending",
      );
      for (const m of still) ctx.log.warn({ messageId: m.id }, "send outcome still unknown after the resolution time; marking failed");
      await changeMessageStatuses(
        db,
        still.map((message) => ({ message, change: { status: "failed", at: new Date(), error: OUTCOME_UNKNOWN } })),
        { handoff: ctx.handoff("receipts") },
      );
    }
    for (const [id, at] of declaredAt) {
      if (due.includes(id)) continue; // resolved, failed or sent again above
      const until = new Date(at.getTime() + opts.resolveMs);
      this.settle(id, new Snooze(until, "send outcome unknown; waiting for a receipt to resolve it"));
    }
  }
}
