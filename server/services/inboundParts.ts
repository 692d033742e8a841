// Long inbound messages: each part is stored durably as it arrives (so the carrier may be answered for it), and
// the part that completes a message stores the message in the same transaction, through receiveInboundMessage.
// Parts still missing after the reassembly timeout: what arrived is stored as one message, `incomplete: true`;
// a part arriving after that becomes a message of its own (incomplete too).
import type { Db } from "../db/knex.js";
import {
  deleteAssembledParts,
  expiredPartKeys,
  storePart,
  takeParts,
  type InboundPart,
  type PartKey,
  type StoredPart,
} from "../db/inboundParts.js";
import type { Logger } from "../logger.js";
import { receiveInboundMessage } from "./inbound.js";
import type { AutoReplyPolicy } from "./keywords.js";

/** How inbound messages are taken: INBOUND_REASSEMBLY_TIMEOUT_MS and the automatic replies' limits. */
export interface InboundOptions extends AutoReplyPolicy {
  reassemblyTimeoutMs: number;
}

/**
 * Stores a part (a repeat is dropped); with the last part, the whole message. Resolves once it is committed.
 * `reassemblyTimeoutMs` (INBOUND_REASSEMBLY_TIMEOUT_MS) is also how long a stored message's key keeps dropping
 * repeats.
 */
export async function receiveInboundPart(db: Db, log: Logger, part: InboundPart, opts: InboundOptions): Promise<void> {
  const outcome = await db.transaction(async (tx) => {
    const { stored, complete } = await storePart(tx, part, opts.reassemblyTimeoutMs);
    if (complete) await storeAssembled(tx, log, part, complete, false, opts);
    return { stored, complete: Boolean(complete) };
  });
  if (!outcome.stored) log.info({ to: part.to, reference: part.reference, seq: part.seq }, "repeated part of an inbound message dropped");
}

/**
 * Stores every message whose parts have waited longer than `timeoutMs`, with what arrived, and forgets the keys of
 * messages stored longer ago than that; returns how many messages it stored.
 */
export async function storeIncompleteInboundMessages(db: Db, log: Logger, opts: InboundOptions): Promise<number> {
  const timeoutMs = opts.reassemblyTimeoutMs;
  await deleteAssembledParts(db, timeoutMs);
  let stored = 0;
  for (const key of await expiredPartKeys(db, timeoutMs)) {
    const took = await db.transaction(async (tx) => {
      const parts = await takeParts(tx, key);
      if (parts.length > 0) await storeAssembled(tx, log, key, parts, true, opts);
      return parts.length > 0;
    });
    if (took) stored++;
  }
  return stored;
}

async function storeAssembled(
  tx: Db,
  log: Logger,
  key: PartKey,
  parts: StoredPart[],
  incomplete: boolean,
  policy: AutoReplyPolicy,
): Promise<void> {
  await receiveInboundMessage(
    tx,
    log,
    {
      from: key.from,
      to: key.to,
      body: parts.map((p) => p.body).join(""),
      receivedAt: parts.reduce((first, p) => (p.receivedAt < first ? p.receivedAt : first), parts[0]!.receivedAt),
      segments: parts.length,
      encoding: parts.some((p) => p.encoding === "UCS-2") ? "UCS-2" : "GSM-7",
      incomplete,
    },
    policy,
  );
}
