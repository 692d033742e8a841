// Sender pools (docs/ROUTING.md, "Sender pools"): the account's API over routing/senderPoolsTable.ts, and the send path's
// choice of a sender for messages of a pool (routing/senderChoice.ts), made set-wise for a claimed window.
import type { Account } from "../operator/index.js";
import { isUniqueViolation } from "../db/errors.js";
import type { Db } from "../db/knex.js";
import { heldAmong } from "../db/numbers.js";
import {
  deleteSenderPool,
  getSenderPool,
  insertSenderPool,
  lastSendersTo,
  listSenderPools,
  lockSenderBooks,
  readSenderBooks,
  readSenderPools,
  setMessageSenders,
  updateSenderBooks,
  updateSenderPool,
  type SenderPoolFields,
  type SenderPoolRow,
} from "./senderPoolsTable.js";
import { DomainError, notFound } from "../domain/errors.js";
import { requireSender } from "../domain/phone.js";
import { chooseSender, type Book } from "./senderChoice.js";
import { makePoolSendsDue } from "../db/jobs/index.js";
import { forgetThroughputBuckets, readThroughputTats, updateThroughputBuckets } from "../db/throughputBuckets.js";
import { senderBucketKey, turnsKey } from "../domain/throughput.js";
import { lockCapsWithTurns, waitForTurns } from "../db/capTurns.js";
import { NOT_HELD, requireAllowedSenderId, senderNotAllowed } from "../domain/sendingGuards.js";

export interface SenderPoolInput {
  name?: string;
  senders?: string[];
  sticky?: boolean;
  maxMessagesPerSecondPerSender?: number | null;
}

export const listPools = (db: Db, accountId: string) => listSenderPools(db, accountId);

export async function getPool(db: Db, accountId: string, id: string): Promise<SenderPoolRow> {
  const pool = await getSenderPool(db, accountId, id);
  if (!pool) throw notFound("Sender pool");
  return pool;
}

export async function createPool(db: Db, account: Account, input: SenderPoolInput & { name: string; senders: string[] }) {
  const fields: SenderPoolFields = {
    name: input.name,
    senders: await checkSenders(db, account, input.senders),
    sticky: input.sticky ?? true,
    maxPerSenderPerSecond: input.maxMessagesPerSecondPerSender ?? null,
  };
  const pool = await insertSenderPool(db, account.id, fields);
  if (!pool) throw poolExists(fields.name);
  return pool;
}

export async function changePool(db: Db, account: Account, id: string, input: SenderPoolInput) {
  const before = await getPool(db, account.id, id);
  const fields: SenderPoolFields = {
    name: input.name ?? before.name,
    senders: input.senders ? await checkSenders(db, account, input.senders) : before.senders,
    sticky: input.sticky ?? before.sticky,
    maxPerSenderPerSecond:
      input.maxMessagesPerSecondPerSender === undefined ? before.maxPerSenderPerSecond : input.maxMessagesPerSecondPerSender,
  };
  const pool = await updateSenderPool(db, account.id, id, fields).catch((error: unknown) => {
    throw isUniqueViolation(error, "sender_pools_name_key") ? poolExists(fields.name) : error;
  });
  if (!pool) throw notFound("Sender pool");
  if (fields.maxPerSenderPerSecond !== before.maxPerSenderPerSecond) {
    // Turns given at the old rate would keep the waiting messages asleep past slots a raised cap has: they are
    // forgotten, and the messages look again now (the pool is read afresh by every choice).
    const senders = [...new Set([...before.senders, ...fields.senders])];
    await forgetThroughputBuckets(
      db,
      senders.map((s) => turnsKey(senderBucketKey(account.id, s))),
    );
    await makePoolSendsDue(db, account.id, id, new Date());
  }
  return pool;
}

export async function removePool(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await deleteSenderPool(db, accountId, id))) throw notFound("Sender pool");
}

const poolExists = (name: string) => new DomainError("sender_pool_exists", `A sender pool named ${name} exists already.`);

/** Each sender normalised and allowed: a number the account holds, or an ID of its list. */
async function checkSenders(db: Db, account: Account, senders: string[]): Promise<string[]> {
  const normal = senders.map((s, i) => {
    const sender = requireSender(s, `/body/senders/${i}`);
    requireAllowedSenderId(sender, account.limits, `/body/senders/${i}`);
    return sender;
  });
  const held = await heldAmong(
    db,
    account.id,
    normal.filter((s) => s.startsWith("+")),
  );
  const unheld = normal.findIndex((s) => s.startsWith("+") && !held.has(s));
  if (unheld >= 0) throw senderNotAllowed(normal[unheld]!, `/body/senders/${unheld}`, NOT_HELD);
  return [...new Set(normal)];
}

/** How far ahead a sender's slot may be taken: the window's messages wait at most this for theirs. */
const SLOT_LOOKAHEAD_S = 0.05;

export interface PoolMessage {
  id: string;
  accountId: string;
  to: string;
  senderPoolId: string;
}

export interface SenderChoices {
  /** Chosen and stored: each message's sender, and the latest slot of them (seconds since the epoch). */
  chosen: Map<string, string>;
  lastSlot: number;
  now: number;
  /** At their senders' caps: when to look again (ms since the epoch). */
  waiting: Map<string, number>;
  /** Their pool was deleted, or none of its senders is still usable. */
  noSender: Set<string>;
}

/**
 * Chooses and stores the senders of messages of pools, in their order (one transaction: the pools, the
 * recipients' last senders, the senders' books locked, the books and the messages written).
 */
export async function chooseSenders(db: Db, messages: PoolMessage[]): Promise<SenderChoices> {
  const pools = new Map(
    (
      await readSenderPools(db, [
        ...new Map(messages.map((m) => [m.senderPoolId, { id: m.senderPoolId, accountId: m.accountId }])).values(),
      ])
    ).map((p) => [p.id, p]),
  );
  const out: SenderChoices = { chosen: new Map(), lastSlot: 0, now: 0, waiting: new Map(), noSender: new Set() };
  const live = messages.filter((m) => {
    const ok = pools.has(m.senderPoolId);
    if (!ok) out.noSender.add(m.id);
    return ok;
  });
  if (live.length === 0) return out;
  const rateOf = new Map<string, Map<string, number>>();
  for (const m of live) {
    const { senders, maxPerSenderPerSecond: rate } = pools.get(m.senderPoolId)!;
    if (rate === null) continue;
    const rates = rateOf.get(m.accountId) ?? new Map<string, number>();
    for (const sender of senders) rates.set(sender, Math.min(rate, rates.get(sender) ?? rate));
    rateOf.set(m.accountId, rates);
  }
  const sticky = live.filter((m) => pools.get(m.senderPoolId)!.sticky);
  const last = new Map(
    (
      await lastSendersTo(
        db,
        sticky.map((m) => ({ accountId: m.accountId, recipient: m.to, senders: pools.get(m.senderPoolId)!.senders })),
      )
    ).map((r) => [`${r.accountId} ${r.recipient}`, r.sender]),
  );
  await db.transaction(async (tx) => {
    const keys = live.flatMap((m) => pools.get(m.senderPoolId)!.senders.map((sender) => ({ accountId: m.accountId, sender })));
    const { now, books } = await lockSenderBooks(tx, keys);
    // A capped pool's senders are buckets of the throughput caps' table, waited for by turns like a connector's
    // (db/capTurns.ts). Their books' own tat is still written for the release before this
    // one (a worker of it reads only that), and read here so a rolling upgrade keeps to the cap.
    const capped = books.filter((b) => rateOf.get(b.accountId)?.has(b.sender));
    const locked =
      capped.length > 0
        ? await lockCapsWithTurns(
            tx,
            capped.map((b) => senderBucketKey(b.accountId, b.sender)),
          )
        : { now, tats: new Map<string, number>() };
    for (const b of capped) b.tat = Math.max(b.tat, locked.tats.get(senderBucketKey(b.accountId, b.sender)) ?? 0);
    out.now = locked.now;
    const tatBefore = new Map(capped.map((b) => [b, b.tat]));
    const byAccount = new Map<string, Map<string, Book>>();
    for (const b of books) byAccount.set(b.accountId, (byAccount.get(b.accountId) ?? new Map()).set(b.sender, b));
    const stored: { id: string; accountId: string; sender: string }[] = [];
    const waiting = new Map<string, { book: Book; rate: number; ids: string[] }>();
    for (const m of live) {
      const pool = pools.get(m.senderPoolId)!;
      const choice = chooseSender(
        { senders: pool.senders, sticky: pool.sticky, rate: pool.maxPerSenderPerSecond },
        m.to,
        last.get(`${m.accountId} ${m.to}`),
        byAccount.get(m.accountId) ?? new Map(),
        out.now,
        out.now + SLOT_LOOKAHEAD_S,
      );
      if (!choice) out.noSender.add(m.id);
      else if ("waitUntil" in choice) {
        // Only a capped sender makes a message wait (chooseSender).
        const key = senderBucketKey(m.accountId, choice.sender);
        const book = byAccount.get(m.accountId)!.get(choice.sender)!;
        const rate = rateOf.get(m.accountId)?.get(choice.sender) ?? pool.maxPerSenderPerSecond!;
        const entry = waiting.get(key) ?? { book, rate, ids: [] };
        waiting.set(key, entry);
        entry.ids.push(m.id);
      } else {
        out.chosen.set(m.id, choice.sender);
        out.lastSlot = Math.max(out.lastSlot, choice.slot);
        stored.push({ id: m.id, accountId: m.accountId, sender: choice.sender });
      }
    }
    const tats = new Map(
      capped.filter((b) => b.tat !== tatBefore.get(b)).map((b) => [senderBucketKey(b.accountId, b.sender), b.tat] as const),
    );
    for (const [key, { book, rate, ids }] of waiting) {
      const turns = waitForTurns(
        locked,
        key,
        { rate, tat: book.tat },
        ids.map((id) => ({ id, segments: 1 })),
        SLOT_LOOKAHEAD_S,
      );
      for (const [id, at] of turns.wakeAtMs) out.waiting.set(id, at);
      if (turns.promised) tats.set(...turns.promised);
    }
    await updateThroughputBuckets(tx, tats);
    await updateSenderBooks(tx, books);
    await setMessageSenders(tx, stored);
  });
  return out;
}

/**
 * The sender a message of the pool to `to` would get now (`routes/explain`), choosing nothing: the books are read,
 * not locked or written. Undefined when the pool has no usable sender.
 */
export async function previewSender(db: Db, accountId: string, senderPoolId: string, to: string): Promise<string | undefined> {
  const pool = await getPool(db, accountId, senderPoolId);
  const [last] = pool.sticky ? await lastSendersTo(db, [{ accountId, recipient: to, senders: pool.senders }]) : [];
  const { now, books } = await readSenderBooks(db, accountId, pool.senders);
  const tats = await readThroughputTats(
    db,
    books.map((b) => senderBucketKey(accountId, b.sender)),
  );
  for (const b of books) b.tat = Math.max(b.tat, tats.get(senderBucketKey(accountId, b.sender)) ?? 0);
  const choice = chooseSender(
    { senders: pool.senders, sticky: pool.sticky, rate: pool.maxPerSenderPerSecond },
    to,
    last?.sender,
    new Map(books.map((b) => [b.sender, b])),
    now,
    now + SLOT_LOOKAHEAD_S,
  );
  return choice?.sender;
}
