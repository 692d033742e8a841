import { deleteOldUnroutedMessages } from "../../operator/index.js";
import { deleteOldAuditEvents } from "../../operator/index.js";
import { deleteOldDailyUsage } from "../../operator/index.js";
import type { Db } from "../../db/knex.js";
import { deleteOldBatches } from "../../db/batches.js";
import {
  deleteOldDeliveries,
  listAccountRetention,
  listWebhookIds,
  eraseAwaitedBodies,
  markBodiesRedacted,
  retainAccountMessages,
  retainConversations,
  type WalkPosition,
} from "../../db/retention.js";
import { chore } from "./chore.js";

export interface RetentionPolicy {
  /** Default days a final message is kept (0: for ever); an account's message_retention_days overrides it. */
  messageRetentionDays: number;
  /** Days a finished receipt delivery is kept (0: for ever). */
  deliveryLogRetentionDays: number;
  /** Days a message's text is kept (0: for ever). */
  messageBodyRetentionDays: number;
  /** Rows per statement: each batch is its own short transaction. */
  batchSize?: number;
  /**
   * After each batch, a pause this many times as long as the batch took (default 3): retention then uses at
   * most a quarter of one connection's time, so a large backlog — the first run over a long history, a
   * retention an operator shortened — is
   * worked off beside live traffic, one connection at a quarter of its time, instead of flat out. 0: no pause.
   */
  pauseFactor?: number;
  /** How a pause is taken (tests record them). */
  pause?: (ms: number) => Promise<void>;
}

const DAY_MS = 86_400_000;

/**
 * Applies retention: per account, deletes final messages past their retention and erases bodies past theirs;
 * then unrouted messages, audit events, daily usage and batches no message names past the default; per webhook,
 * deletes finished deliveries past the delivery log's. Returns the rows it changed.
 */
export async function applyRetention(db: Db, policy: RetentionPolicy, now = new Date()): Promise<number> {
  const limit = policy.batchSize ?? 500;
  const ago = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const factor = policy.pauseFactor ?? 3;
  const pause = policy.pause ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  /** One batch, then its pause. */
  const paced = async <T>(batch: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await batch();
    const ms = (performance.now() - t) * factor;
    if (ms > 0) await pause(ms);
    return result;
  };
  let total = 0;
  for (const account of await listAccountRetention(db)) {
    const days = account.messageRetentionDays ?? policy.messageRetentionDays;
    if (days > 0)
      total += await walk((after) =>
        paced(() => retainAccountMessages(db, "delete", { accountId: account.accountId, before: ago(days), after, limit })),
      );
    // The inbox's threads go with their messages, and their last bodies with the bodies.
    if (days > 0)
      for (let n = limit; n === limit; total += n)
        n = await paced(() => retainConversations(db, "delete", { accountId: account.accountId, before: ago(days), limit }));
    if (policy.messageBodyRetentionDays > 0)
      for (let n = limit; n === limit; total += n)
        n = await paced(() =>
          retainConversations(db, "erase", { accountId: account.accountId, before: ago(policy.messageBodyRetentionDays), limit }),
        );
    if (policy.messageBodyRetentionDays > 0) {
      const before = ago(policy.messageBodyRetentionDays);
      // From where the last complete run stopped: a body is erased once, and no run re-reads the erased ones.
      const from = account.bodiesRedactedBefore;
      total += await walk((after) =>
        paced(() => retainAccountMessages(db, "redact", { accountId: account.accountId, from, before, after, limit })),
      );
      if (!from || before > from) await markBodiesRedacted(db, account.accountId, before);
      // The messages that were still waiting when the walk passed them, final since.
      for (let n = limit; n === limit; total += n) n = await paced(() => eraseAwaitedBodies(db, account.accountId, limit));
    }
  }
  // Unrouted inbound messages, the audit log, the daily usage counts and batches whose messages are gone are kept
  // as long as messages are by default (no account's setting applies).
  if (policy.messageRetentionDays > 0) {
    const before = ago(policy.messageRetentionDays);
    for (let n = limit; n === limit; total += n) n = await paced(() => deleteOldBatches(db, before, limit));
    for (let n = limit; n === limit; total += n) n = await paced(() => deleteOldUnroutedMessages(db, before, limit));
    for (let n = limit; n === limit; total += n) n = await paced(() => deleteOldAuditEvents(db, before, limit));
    total += await deleteOldDailyUsage(db, before);
  }
  if (policy.deliveryLogRetentionDays > 0) {
    const before = ago(policy.deliveryLogRetentionDays);
    for (const webhookId of await listWebhookIds(db)) {
      for (let n = limit; n === limit; total += n) n = await paced(() => deleteOldDeliveries(db, webhookId, before, limit));
    }
  }
  return total;
}

async function walk(step: (after: WalkPosition | undefined) => Promise<{ changed: number; next: WalkPosition | undefined }>) {
  let total = 0;
  let after: WalkPosition | undefined;
  do {
    const batch = await step(after);
    total += batch.changed;
    after = batch.next;
  } while (after);
  return total;
}

/** Retention, every 10 minutes (a frequent restart must not postpone it for ever): batches of `batchSize`, each its own statement and followed by its pause, until nothing past its time is left. */
export const applyRetentionChore = (db: Db, policy: RetentionPolicy, everyMs = 600_000) =>
  chore("apply retention", everyMs, () => applyRetention(db, policy));
