// Receipts to client applications (docs/SMPP.md, "For client applications"): every `everyMs`, this process
// leases the waiting receipts of the accounts it holds a receiver bind of (db/smppClientReceipts.ts), as many
// as their receivers' windows have room for, sends each as a deliver_sm to one of them, and deletes it once
// answered. An unanswered or refused one keeps its lease until it runs out, then goes again (to whichever
// process holds a receiver then): at least once. Receipts older than the hold are deleted.
import type { Db } from "../db/knex.js";
import { deleteClientReceipts, deleteExpiredClientReceipts, leaseClientReceipts } from "../db/smppClientReceipts.js";
import type { Logger } from "../logger.js";
import type { ClientSession } from "./clientSession.js";
import { receiptFields, receiptMessageId } from "./receiptPdu.js";

export interface ForwarderOptions {
  db: Db;
  log: Logger;
  serverId: string;
  sessions: () => Iterable<ClientSession>;
  /** How long a sent receipt is leased: longer than a deliver_sm's response timeout. */
  leaseMs: number;
  holdHours: number;
}

export function receiptForwarder(opts: ForwarderOptions): () => Promise<number> {
  let lastSweep = 0;
  return async () => {
    if (Date.now() - lastSweep > 60_000) {
      lastSweep = Date.now();
      const expired = await deleteExpiredClientReceipts(opts.db, opts.holdHours);
      if (expired > 0) opts.log.warn({ expired }, "SMPP receipts dropped: no receiver bound within SMPP_SERVER_HOLD_HOURS");
    }
    const receivers = new Map<string, ClientSession[]>();
    let room = 0;
    for (const s of opts.sessions()) {
      const account = s.receiverOf;
      if (account === undefined) continue;
      receivers.set(account, [...(receivers.get(account) ?? []), s]);
      room += s.room;
    }
    if (receivers.size === 0) return 0;
    const leased = await leaseClientReceipts(opts.db, opts.serverId, [...receivers.keys()], room, opts.leaseMs);
    const acknowledged: { id: string; accountId: string }[] = [];
    const next = new Map<string, number>();
    await Promise.all(
      leased.map(async (r) => {
        const id = receiptMessageId(r);
        const candidates = (receivers.get(r.accountId) ?? []).filter((s) => s.room > 0);
        if (id === undefined || candidates.length === 0) return; // its lease runs out; it goes again then
        const turn = next.get(r.accountId) ?? 0;
        next.set(r.accountId, turn + 1);
        const session = candidates[turn % candidates.length]!;
        if (await session.deliver(receiptFields(r, id, new Date()))) acknowledged.push({ id: r.id, accountId: r.accountId });
      }),
    );
    await deleteClientReceipts(opts.db, acknowledged);
    return acknowledged.length;
  };
}
