// Makes the providers a connector runs: the simulator, or one SmppProvider per SMPP session.
import type { Config } from "../config.js";
import type { SmppSettings } from "../routing/index.js";
import { insertJobs, type JobHandoff, type NewJob } from "../db/jobs/index.js";
import { batcher } from "../db/batcher.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import { SimulatorProvider } from "./simulator.js";
import { SmppProvider, smppLink } from "./smpp/provider.js";
import { applySmppReceipts, type ReceiptOutcome, type ReceiptPayload } from "./smpp/applyReceipts.js";
import { isDeliveryReceipt, parseReceipt } from "./smpp/receiptPdus.js";
import { isInboundMessage, storeSmppInbound } from "./smpp/inboundPdus.js";

export function createSimulator(db: Db, config: Config): SimulatorProvider {
  return new SimulatorProvider(db, config.simulatorDeliveryDelayMs, config.simulatorSubmitDelayMs);
}

/** A receipt read from a link, and how many times it has been looked at in memory. */
interface ReadReceipt {
  payload: ReceiptPayload;
  looks: number;
  /** Set by a look that found it must wait (its submit's answer not recorded yet): how long before the next. */
  waitMs?: number;
}

/**
 * Looks a receipt that overtook the recording of its submit's answer gets in memory, and the waits between
 * them, before it is stored as a job: an SMSC that sends the receipt with the submit_sm_resp (many do) is
 * matched once its window is recorded (a few milliseconds; under load up to several hundred), without a job row.
 */
const MEMORY_WAITS_MS = [10, 25, 50, 100, 200, 400];
const FIRST_LOOK_MS = 25;

/**
 * What every SMPP session of a worker shares: receipts read together are applied together, before any of
 * their deliver_sm is acknowledged (providers/smpp/applyReceipts.ts). A receipt that must wait (its submit's
 * answer not recorded yet) is looked at again after MEMORY_WAITS_MS, then stored as an `smpp_receipt` job; a
 * batch that cannot be applied at once (a deadlock, a lost connection) is stored whole as jobs. Only once a
 * receipt is applied or stored is its deliver_sm answered: a receipt never answered is sent again by the
 * SMSC, and applying one twice changes nothing the first did not.
 * `handoff`: the worker's receipts lane, which takes the webhook deliveries the changes make already claimed.
 */
export function receiptStore(db: Db, log: Logger, handoff: () => JobHandoff | undefined): { add(payload: ReceiptPayload): Promise<void> } {
  const asJob = (payload: ReceiptPayload, runAt?: Date): NewJob => ({ kind: "smpp_receipt", payload, accountId: null, runAt });
  const looks = batcher<ReadReceipt>(
    async (items) => {
      let outcomes: ReceiptOutcome[];
      try {
        outcomes = await applySmppReceipts(
          db,
          items.map((item) => ({ payload: item.payload, attempt: 0, maxAttempts: 1 })),
          { log, handoff: handoff() },
        );
      } catch (error) {
        log.warn({ err: error, receipts: items.length }, "SMPP receipts not applied at once: stored as jobs");
        await db.transaction((tx) =>
          insertJobs(
            tx,
            items.map((item) => asJob(item.payload)),
          ),
        );
        return;
      }
      const stored: NewJob[] = [];
      items.forEach((item, i) => {
        const later = outcomes[i];
        if (!later) return;
        if (item.looks < MEMORY_WAITS_MS.length) item.waitMs = MEMORY_WAITS_MS[item.looks];
        else stored.push(asJob(item.payload, later.retryAt));
      });
      if (stored.length > 0) await db.transaction((tx) => insertJobs(tx, stored));
    },
    // The first look waits FIRST_LOOK_MS for company: a window's receipts arrive with (or just after) its
    // submit answers, which its send batch records a statement or two later. Looked at at once, two of three
    // found nothing yet and were looked at again, and the batches were small: more status-change statements
    // than the job path had made, 10 % more CPU per message (bench/NOTES.md, "Write budget").
    { maxBatch: 500, delayMs: FIRST_LOOK_MS },
  );
  return {
    async add(payload) {
      const item: ReadReceipt = { payload, looks: 0 };
      for (;;) {
        item.waitMs = undefined;
        await looks.add(item);
        if (item.waitMs === undefined) return;
        await new Promise((r) => setTimeout(r, item.waitMs));
        item.looks++;
      }
    },
  };
}

/** One SMPP session of a connector: its link's settings, the process's for the rest (SMPP_* variables). */
/** A connector's SMPP settings as the session's URL (its password in it: never logged). */
function smppUrlOf(smpp: SmppSettings): string {
  return `smpp://${encodeURIComponent(smpp.systemId)}:${encodeURIComponent(smpp.password)}@${smpp.host}:${smpp.port}`;
}

/** The link a connector's sessions send on (what createSmppSession's sessions call theirs). */
export function smppLinkOf(smpp: SmppSettings): string {
  return smppLink(smppUrlOf(smpp));
}

export function createSmppSession(
  deps: { db: Db; config: Config; log: Logger; receipts: ReturnType<typeof receiptStore> },
  smpp: SmppSettings,
  connector: string,
): SmppProvider {
  const { db, config, log } = deps;
  const url = smppUrlOf(smpp);
  const link = smppLink(url);
  const defaultCountry = smpp.defaultCountry ?? config.smppDefaultCountry;
  const exact = smpp.messageIdFormat === "exact";
  const inboundLog = log.child({ component: "smpp-inbound", connector });
  return new SmppProvider(db, {
    url,
    systemType: smpp.systemType ?? config.smppSystemType,
    maxInFlight: smpp.window ?? config.smppMaxInFlight,
    maxPerSecond: config.smppMaxPerSecond,
    responseTimeoutMs: config.smppResponseTimeoutMs,
    enquireLinkMs: config.smppEnquireLinkMs,
    throttlePauseMs: config.smppThrottlePauseMs,
    throttleMaxWaitMs: config.smppThrottleMaxWaitMs,
    log: log.child({ component: "smpp", connector }),
    // Stored before the deliver_sm is acknowledged: a receipt applied (or as a job), an inbound message (or a
    // part of one) as itself. Other message types (e.g. intermediate notifications) are acknowledged and ignored.
    storeDelivered: async (pdu) => {
      if (isInboundMessage(pdu))
        return storeSmppInbound(db, inboundLog, pdu, {
          reassemblyTimeoutMs: config.inboundReassemblyTimeoutMs,
          autoReplyMaxPerHour: config.autoReplyMaxPerHour,
          defaultCountry,
        });
      if (!isDeliveryReceipt(pdu)) return log.info({ esmClass: pdu.esm_class }, "SMPP deliver_sm of another message type ignored");
      const receipt = parseReceipt(pdu, defaultCountry);
      if (!receipt) return log.warn("SMPP receipt without id or stat acknowledged and ignored");
      const payload = {
        segmentId: receipt.messageId,
        stat: receipt.stat,
        err: receipt.err,
        at: new Date().toISOString(),
        link,
        destination: receipt.destination,
        submittedMinute: receipt.submittedMinute?.toISOString() ?? null,
        text: receipt.text,
        ...(exact ? { exactId: true } : {}),
      };
      await deps.receipts.add(payload);
    },
  });
}
