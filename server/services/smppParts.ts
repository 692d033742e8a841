// A concatenated submit_sm's parts (docs/SMPP.md, "For client applications"): each part stored durably before
// its answer, every part answered with the same id, and the message stored through the HTTP API's acceptance
// path (scheduleMessage) when the last part is in, in the same transaction that deletes the parts.
import type { Knex } from "knex";
import { nextSmppId, setSmppId } from "../db/smppMessageIds.js";
import { deleteParts, lockOpenParts, lockPartKey, openPartMessages, partBodies, partsIdentity, storePart } from "../db/smppSubmitParts.js";
import { MAX_BODY } from "../../common/personalise.js";
import { uuidv7 } from "../domain/uuidv7.js";
import type { Account } from "../operator/index.js";
import type { SendRequest } from "./acceptMessage.js";
import { scheduleMessage } from "./messages.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

/** A text's length as the HTTP API counts `body` (code points). */
const textLength = (text: string): number => [...text].length;

export interface SubmittedPart {
  reference: number;
  total: number;
  seq: number;
}

/**
 * Stores one part; when it completes its message, stores the message. Returns the id every part answers with
 * and its short id (when `idFormat` asks for one), or why the part was refused, nothing stored: the whole text
 * would pass the HTTP API's 1600 characters (the message's stored parts are deleted with it), or the account
 * has `maxOpenMessages` incomplete messages already. A refusal of the complete message (its sender, its
 * destination, the quota) is thrown by the last part, and the parts stay until they expire (with an
 * undelivered receipt when it asked for one: db/smppSubmitParts.ts, expireStaleParts).
 */
export async function submitPart(
  db: Knex,
  account: Account,
  request: SendRequest,
  part: SubmittedPart,
  opts: {
    at: Date;
    test: boolean;
    destinations: DeploymentDestinations;
    idFormat: "uuid" | "hex" | "decimal";
    receipt: boolean;
    /** At most this many incomplete messages per account (SMPP_SERVER_MAX_OPEN_PARTS): the first part of one more is refused. */
    maxOpenMessages: number;
  },
): Promise<{ messageId: string; smppId: string | null } | { refused: "too_long" | "too_many_open" }> {
  const k = { accountId: account.id, key: `${request.from}|${request.to}|${part.reference}|${part.total}` };
  return db.transaction(async (tx) => {
    await lockPartKey(tx, k);
    let identity = await partsIdentity(tx, k);
    if (!identity) {
      // A new message: counted against the account's open ones under the account's lock, so two first parts at
      // once never both take the last place.
      await lockOpenParts(tx, account.id);
      if ((await openPartMessages(tx, account.id)) >= opts.maxOpenMessages) return { refused: "too_many_open" as const };
      identity = { messageId: uuidv7(), smppId: opts.idFormat === "uuid" ? null : await nextSmppId(tx) };
    }
    const stored = await partBodies(tx, k, part.seq);
    if (textLength(stored.join("") + request.body) > MAX_BODY) {
      // The whole text would be longer than POST /messages takes: it can never be sent, so its parts go too.
      await deleteParts(tx, k);
      return { refused: "too_long" as const };
    }
    const bodies = await storePart(tx, k, {
      ...part,
      body: request.body,
      ...identity,
      receipt: opts.receipt ? opts.idFormat : null,
      sender: request.from ?? "",
      recipient: request.to,
    });
    if (bodies.length === part.total) {
      await scheduleMessage(tx, account, { ...request, body: bodies.join("") }, opts.at, {
        test: opts.test,
        destinations: opts.destinations,
        smppReceipt: opts.receipt ? opts.idFormat : undefined,
        messageId: identity.messageId,
      });
      if (identity.smppId !== null) await setSmppId(tx, account.id, identity.messageId, identity.smppId);
      await deleteParts(tx, k);
    }
    return identity;
  });
}
