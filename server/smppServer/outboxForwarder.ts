// Receipts and inbound messages to client applications (docs/SMPP.md, "For client applications"): every
// `everyMs`, this process leases the waiting entries of the accounts it holds a receiver bind of
// (db/smppOutbox.ts), as many as their receivers' windows have room for, sends each as a deliver_sm to one of
// them, and deletes it once answered; while a lease fills the windows, the next follows at once (a backlog
// drains at the client's pace, not one window per tick). An unanswered or refused one keeps its lease until it runs out, then goes
// again (to whichever process holds a receiver then): at least once. Once a minute, entries older than the hold
// and parts of concatenated submits older than 10 minutes are deleted (the parts with an undelivered receipt).
import type { Db } from "../db/knex.js";
import { deleteExpiredOutboxEntries, deleteOutboxEntries, leaseOutbox } from "../db/smppOutbox.js";
import { expireStaleParts } from "../db/smppSubmitParts.js";
import type { Logger } from "../logger.js";
import type { ClientSession } from "./clientSession.js";
import { inboundFields, receiptFields, receiptMessageId } from "./deliverSmPdus.js";

export interface ForwarderOptions {
  db: Db;
  log: Logger;
  serverId: string;
  sessions: () => Iterable<ClientSession>;
  /** How long a sent entry is leased: longer than a deliver_sm's response timeout. */
  leaseMs: number;
  holdHours: number;
  /** How long the parts of a concatenated submit_sm wait for the rest (10 minutes). */
  partMaxAgeMs: number;
  /** How often expired entries and parts are swept (a minute). */
  sweepMs: number;
}

/** One pass: the entries acknowledged, and whether the lease filled every window (more may be waiting). */
export interface ForwardPass {
  acknowledged: number;
  full: boolean;
}

export function outboxForwarder(opts: ForwarderOptions): () => Promise<ForwardPass> {
  let lastSweep = 0;
  return async () => {
    if (Date.now() - lastSweep > opts.sweepMs) {
      lastSweep = Date.now();
      const expired = await deleteExpiredOutboxEntries(opts.db, opts.holdHours);
      if (expired > 0) opts.log.warn({ expired }, "SMPP deliver_sm dropped: no receiver bound within SMPP_SERVER_HOLD_HOURS");
      const stale = await expireStaleParts(opts.db, opts.partMaxAgeMs);
      if (stale > 0)
        opts.log.warn({ stale }, "SMPP submit parts dropped, their message never complete: undelivered receipts sent where asked");
    }
    const receivers = new Map<string, ClientSession[]>();
    let room = 0;
    for (const s of opts.sessions()) {
      const account = s.receiverOf;
      if (account === undefined) continue;
      receivers.set(account, [...(receivers.get(account) ?? []), s]);
      room += s.room;
    }
    if (receivers.size === 0 || room === 0) return { acknowledged: 0, full: false };
    const leased = await leaseOutbox(opts.db, opts.serverId, [...receivers.keys()], room, opts.leaseMs);
    const acknowledged: { id: string; accountId: string }[] = [];
    const next = new Map<string, number>();
    await Promise.all(
      leased.map(async (entry) => {
        const id = entry.kind === "receipt" ? receiptMessageId(entry) : undefined;
        const candidates = (receivers.get(entry.accountId) ?? []).filter((s) => s.room > 0);
        if ((entry.kind === "receipt" && id === undefined) || candidates.length === 0) return; // its lease runs out; it goes again
        const turn = next.get(entry.accountId) ?? 0;
        next.set(entry.accountId, turn + 1);
        const session = candidates[turn % candidates.length]!;
        const fields = entry.kind === "receipt" ? receiptFields(entry, id!, new Date()) : inboundFields(entry);
        if (await session.deliver(fields)) acknowledged.push({ id: entry.id, accountId: entry.accountId });
      }),
    );
    await deleteOutboxEntries(opts.db, acknowledged);
    return { acknowledged: acknowledged.length, full: leased.length === room };
  };
}
