// Creating and cancelling a campaign: the request's rules checked, the audience snapshotted and the fan-out
// job queued in one transaction, so a campaign never exists without its audience and its job.
import { uuidv7 } from "../domain/uuidv7.js";
import type { Knex } from "knex";
import type { components } from "../../generated/api.js";
import type { Account } from "../operator/index.js";
import {
  cancelCampaign as cancelCampaignRows,
  moveCampaign,
  scheduleDraft,
  renameCampaign,
  insertCampaign,
  lockCampaign,
  setEstimatedCost,
} from "../db/campaigns.js";
import { groupAudience, snapshotGroupAudience, snapshotListAudience } from "../db/campaignAudience.js";
import { groupExists } from "../db/groups.js";
import { getSenderPool } from "../routing/index.js";
import { insertJobs } from "../db/jobs/index.js";
import { deleteThrottledSendsOfCampaign } from "../db/throttledSends.js";
import { DomainError, groupNotFound, invalidField, notFound, testKeyNotAllowed } from "../domain/errors.js";
import { fill, filledProblem, PLACEHOLDER_NAME, type Fallbacks } from "../../common/personalise.js";
import { madeText, templatesOf } from "./templates.js";
import { segmentInfo } from "../../common/segments.js";
import { textToSend } from "../../common/smartEncoding.js";
import { accountSmartEncoding } from "../db/accountSettings.js";
import { requireMetadata } from "../domain/metadata.js";
import { needsSmartEncodingDefault } from "./acceptMessage.js";
import { phoneProblem, requireSender } from "../domain/phone.js";
import { checkDestination, destinationsOf, requireAllowedSenderId } from "../domain/sendingGuards.js";
import { refusalError } from "../domain/intakeRefusals.js";
import { chargeQuota, countsQuota, screen, type IntakeContext, priceBookFor, priceOf } from "./acceptance/index.js";
import { balanceMoved, chargeFloor, ensureBalance, insufficientFunds, releaseReservation, reserveForCampaign } from "../billing/index.js";
import { checkScheduledAt } from "../domain/schedule.js";
import { mapYielding } from "./yieldingMap.js";
import { retriedTransaction } from "../db/retriedTransaction.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

export type CreateCampaignRequest = components["schemas"]["CreateCampaignRequest"];

/**
 * Checks the request and stores the campaign, its audience and its fan-out job; returns its id. The operator's
 * guards apply: the sender; recipients whose destination is not allowed are left out (counted in
 * stats.skipped); the daily quota counts the whole audience that will get a message, each recipient's text
 * personalised.
 */
export async function createCampaign(
  db: Knex,
  account: Account,
  body: CreateCampaignRequest,
  opts: {
    now: Date;
    defaultSenderId: string;
    test: boolean;
    destinations: DeploymentDestinations;
    /** A draft (a duplicate): stored, checked and reserved, its fan-out queued only when it is resumed. */
    draft?: boolean;
  },
): Promise<string> {
  const accountId = account.id;
  if ((body.groupId === undefined) === (body.recipients === undefined)) {
    throw invalidField("/body", "must have exactly one audience: groupId or recipients");
  }
  let scheduledAt: Date | null = null;
  if (body.type === "scheduled") {
    if (body.scheduledAt === undefined) throw invalidField("/body/scheduledAt", "is required when type is scheduled");
    scheduledAt = new Date(body.scheduledAt);
    checkScheduledAt(scheduledAt, opts.now);
  } else if (body.scheduledAt !== undefined) {
    throw invalidField("/body/scheduledAt", "is only allowed when type is scheduled");
  }
  if (body.from !== undefined && body.senderPoolId !== undefined)
    throw invalidField("/body/from", "or senderPoolId: at most one of the two");
  const senderPoolId = body.senderPoolId ?? null;
  // With a pool, each message's sender is chosen when it is sent.
  const from =
    senderPoolId !== null
      ? ""
      : body.from === undefined
        ? (account.limits?.senderIds?.[0] ?? opts.defaultSenderId)
        : requireSender(body.from, "/body/from");
  if (senderPoolId === null) requireAllowedSenderId(from, account.limits, "/body/from");
  const metadata = requireMetadata(body.metadata, "/body/metadata");
  const fallbacks = checkedFallbacks(body.fallbacks);
  // Its own text, or a template's with its variables (the contact's own placeholders left to fill per contact).
  const made = madeText(
    { text: body.message, templateId: body.templateId, variables: body.variables },
    await templatesOf(db, accountId, [body]),
    { path: "/body", textField: "message", keep: (name) => PLACEHOLDER_NAME.test(name) },
  );
  const message = made.text;
  const category = body.category ?? made.category;
  const smartEncoding = body.smartEncoding ?? (needsSmartEncodingDefault({ body: message }) && (await accountSmartEncoding(db, accountId)));
  const allowed = destinationsOf(account.limits, opts.destinations);
  // Normalised (with whether each may be sent to, from the same parse) and de-duplicated: one number listed
  // twice gets one message.
  const listed =
    body.recipients &&
    (await mapYielding(body.recipients, (phone, i) => {
      const checked = checkDestination(phone, allowed);
      if (!checked) throw invalidField(`/body/recipients/${i}`, phoneProblem(phone));
      return checked;
    }));

  return db.transaction(async (tx) => {
    const id = uuidv7();
    const groupId = body.groupId ?? null;
    if (groupId && !(await groupExists(tx, accountId, groupId))) throw groupNotFound();
    if (senderPoolId !== null && !(await getSenderPool(tx, accountId, senderPoolId)))
      throw new DomainError("sender_pool_not_found", "senderPoolId does not name a sender pool of this account.", {
        errors: [{ path: "/body/senderPoolId", message: "no such sender pool" }],
      });
    const intake: IntakeContext = { db: tx, accountId, destinations: allowed };
    // The campaign's own sender first: a number the account does not hold refuses the campaign.
    const sender = (await screen(intake, [{ to: "", from, path: "/body" }], ["held_sender"])).refused.get(0);
    if (sender) throw refusalError(sender.refusal);
    const candidates = groupId
      ? await groupAudience(tx, accountId, groupId)
      : [...new Map(listed!.map((c) => [c.e164, { phone: c.e164, firstName: null, lastName: null, customFields: null }])).values()];
    if (candidates.length === 0)
      throw new DomainError("empty_audience", "The group has no contacts.", {
        errors: [{ path: "/body/groupId", message: "group has no contacts" }],
      });
    // Recipients whose destination is refused are left out, counted by why: blocked by the operator, or not allowed.
    const judged = await screen(
      intake,
      candidates.map((c) => ({ to: c.phone, path: "" })),
      ["destination"],
    );
    const blocked = new Set<string>();
    const skippedBy: Record<string, number> = {};
    for (const [i, r] of judged.refused) {
      const phone = candidates[i]!.phone;
      if (blocked.has(phone)) continue;
      blocked.add(phone);
      const reason = r.refusal.code === "destination_blocked" ? "blocked" : "destination_not_allowed";
      skippedBy[reason] = (skippedBy[reason] ?? 0) + 1;
    }
    // Each recipient's own message; one whose placeholders cannot be filled (or that nothing would be left of)
    // is left out, counted as skipped for a missing value.
    const texts = new Map<string, string>();
    for (const [i, text] of (
      await mapYielding(candidates, (c) => (blocked.has(c.phone) ? undefined : fill(message, c, fallbacks)))
    ).entries()) {
      const phone = candidates[i]!.phone;
      if (blocked.has(phone)) continue;
      if (text === undefined) {
        blocked.add(phone);
        skippedBy.missing_value = (skippedBy.missing_value ?? 0) + 1;
      } else texts.set(phone, text);
    }
    const audience = candidates.filter((c) => !blocked.has(c.phone));
    for (const [phone, text] of texts) {
      const problem = filledProblem(text);
      if (problem) throw invalidField("/body/message", `personalised for ${phone}, it ${problem}`);
    }
    const optedOut = new Set(
      [
        ...(
          await screen(
            intake,
            audience.map((c) => ({ to: c.phone, path: "" })),
            ["opt_out"],
          )
        ).refused.keys(),
      ].map((i) => audience[i]!.phone),
    );
    const reached = audience.filter((c) => !optedOut.has(c.phone));
    if (reached.length === 0) {
      throw new DomainError(
        "empty_audience",
        `No recipient can be sent to: ${blocked.size} have a destination that is not allowed or lack a value a placeholder needs (with no fallback), ${optedOut.size} opted out.`,
        { errors: [{ path: groupId ? "/body/groupId" : "/body/recipients", message: "no recipient can be sent to" }] },
      );
    }
    await insertCampaign(tx, accountId, {
      id,
      name: body.name,
      message,
      type: body.type,
      from,
      senderPoolId,
      groupId,
      scheduledAt,
      validityPeriod: body.validityPeriod ?? null,
      category,
      templateId: made.templateId,
      priority: body.priority,
      test: opts.test,
      skipped: blocked.size,
      skippedBy,
      reference: body.reference ?? null,
      metadata,
      smartEncoding,
      fallbacks,
      draft: opts.draft,
    });
    if (groupId) await snapshotGroupAudience(tx, accountId, id, groupId, [...blocked]);
    else
      await snapshotListAudience(
        tx,
        accountId,
        id,
        audience.map((c) => c.phone),
      );
    const book = opts.test ? undefined : await priceBookFor(tx, account.limits);
    if (countsQuota(account, opts.test) || book) {
      const segments = await mapYielding(reached, (c) => segmentInfo(textToSend(texts.get(c.phone)!, smartEncoding)).segments);
      if (countsQuota(account, opts.test))
        await chargeQuota(
          tx,
          account,
          segments.reduce((a, b) => a + b, 0),
          opts,
        );
      // Its whole audience's cost, reserved now (refused whole when a prepaid balance cannot pay it); its
      // messages are charged their own prices as they are made, against the reservation (docs/BILLING.md).
      if (book) {
        const path = groupId ? "/body/groupId" : "/body/recipients";
        const cost = (await mapYielding(reached, (c, i) => priceOf(book, c.phone, segments[i]!, path).amount)).reduce((a, b) => a + b, 0);
        await ensureBalance(tx, accountId);
        if (!(await reserveForCampaign(tx, accountId, id, cost, chargeFloor(account.limits)))) throw insufficientFunds(path);
        await setEstimatedCost(tx, accountId, id, cost);
        await balanceMoved(tx, accountId, account.limits);
      }
    }
    if (!opts.draft) await insertJobs(tx, [{ kind: "campaign_fanout", payload: { campaignId: id }, runAt: opts.now, accountId }]);
    return id;
  });
}

/**
 * Renames a campaign, and moves a draft, or a scheduled one not yet started, to a new time (409
 * `campaign_started` once it is sending or over). A test key changes only test campaigns, as it cancels only them.
 */
export async function updateCampaign(
  db: Knex,
  accountId: string,
  campaignId: string,
  changes: { name?: string; scheduledAt?: string },
  opts: { now: Date; testKey: boolean },
): Promise<void> {
  const at = changes.scheduledAt === undefined ? undefined : new Date(changes.scheduledAt);
  if (at) checkScheduledAt(at, opts.now);
  await retriedTransaction(db, async (tx) => {
    const campaign = await lockCampaign(tx, accountId, campaignId);
    if (!campaign) throw notFound("Campaign");
    if (opts.testKey && !campaign.test) throw testKeyNotAllowed("campaign");
    if (at) {
      // A draft has no messages yet: its time is set (it becomes a scheduled campaign, sent then once started).
      if (campaign.status === "draft") await scheduleDraft(tx, accountId, campaignId, at);
      else if (campaign.status !== "scheduled")
        throw new DomainError(
          "campaign_started",
          `The campaign is ${campaign.status}: only a draft, or a scheduled campaign that has not started, moves.`,
          {
            errors: [{ path: "/body/scheduledAt", message: "the campaign has started" }],
          },
        );
      else await moveCampaign(tx, accountId, campaignId, at, campaign.validityPeriod);
    }
    if (changes.name !== undefined) await renameCampaign(tx, accountId, campaignId, changes.name);
  });
}

/** The campaign's fallbacks, their names and values checked (400 naming the entry). */
function checkedFallbacks(given: Record<string, string> | undefined): Fallbacks {
  for (const [name, value] of Object.entries(given ?? {})) {
    if (!PLACEHOLDER_NAME.test(name))
      throw invalidField(`/body/fallbacks/${name}`, "is not a placeholder: firstName, lastName or custom.<key>");
    if ([...value].length > 500) throw invalidField(`/body/fallbacks/${name}`, "must be at most 500 characters");
  }
  return given ?? {};
}

/** Cancels what has not been sent yet; repeatable. A completed campaign is a 409. */
export async function cancelCampaign(db: Knex, accountId: string, campaignId: string, opts: { testKey?: boolean } = {}): Promise<void> {
  await retriedTransaction(db, async (tx) => {
    const campaign = await lockCampaign(tx, accountId, campaignId);
    if (!campaign) throw notFound("Campaign");
    if (opts.testKey && !campaign.test) throw testKeyNotAllowed("campaign");
    if (campaign.status === "cancelled") return; // repeat cancel: same answer
    if (campaign.status === "completed") {
      throw new DomainError("not_cancellable", "The campaign is completed: every message reached a final status.");
    }
    await cancelCampaignRows(tx, accountId, campaignId);
    // What its reservation still holds for messages never made goes back (those made refund themselves).
    await releaseReservation(tx, accountId, campaignId);
    // Its messages waiting for throughput leave the queue (after their jobs: the pacer's lock order).
    await deleteThrottledSendsOfCampaign(tx, accountId, campaignId);
  });
}
