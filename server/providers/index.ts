import type { Config } from "../config.js";
import { insertJobs, type NewJob } from "../db/jobs/index.js";
import { batcher } from "../db/batcher.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import { SimulatorProvider } from "./simulator.js";
import { SmppProvider, smppLink } from "./smpp/provider.js";
import { isDeliveryReceipt, parseReceipt } from "./smpp/receipts.js";
import { isInboundMessage, storeSmppInbound } from "./smpp/inbound.js";
import type { Provider } from "./types.js";

/** The provider `config` names: the deployment's, as services/deploymentProvider.ts resolved it at start. */
export function createProvider(config: Config, db: Db, log: Logger): Provider {
  switch (config.provider) {
    case undefined:
      throw new Error("the deployment's provider was not resolved before the worker started");
    case "simulator":
      return new SimulatorProvider(db, config.simulatorDeliveryDelayMs, config.simulatorSubmitDelayMs);
    case "smpp": {
      const inboundLog = log.child({ component: "smpp-inbound" });
      // Receipts read together (a window's worth arrives at once) are stored in one transaction, each
      // deliver_sm acknowledged once its batch is committed.
      const receiptJobs = batcher<NewJob>((jobs) => db.transaction((tx) => insertJobs(tx, jobs)), { maxBatch: 500 });
      if (!config.smppUrl) throw new Error("PROVIDER=smpp needs SMPP_URL=smpp://system_id:password@host:port");
      return new SmppProvider(db, {
        url: config.smppUrl,
        systemType: config.smppSystemType,
        maxInFlight: config.smppMaxInFlight,
        maxPerSecond: config.smppMaxPerSecond,
        responseTimeoutMs: config.smppResponseTimeoutMs,
        enquireLinkMs: config.smppEnquireLinkMs,
        throttlePauseMs: config.smppThrottlePauseMs,
        throttleMaxWaitMs: config.smppThrottleMaxWaitMs,
        log: log.child({ component: "smpp" }),
        // Stored before the deliver_sm is acknowledged: a receipt as a job, an inbound message (or a part of one)
        // as itself. Other message types (e.g. intermediate notifications) are acknowledged and ignored.
        storeDelivered: async (pdu) => {
          if (isInboundMessage(pdu))
            return storeSmppInbound(db, inboundLog, pdu, {
              reassemblyTimeoutMs: config.inboundReassemblyTimeoutMs,
              autoReplyMaxPerHour: config.autoReplyMaxPerHour,
              defaultCountry: config.smppDefaultCountry,
            });
          if (!isDeliveryReceipt(pdu)) return log.info({ esmClass: pdu.esm_class }, "SMPP deliver_sm of another message type ignored");
          const receipt = parseReceipt(pdu, config.smppDefaultCountry);
          if (!receipt) return log.warn("SMPP receipt without id or stat acknowledged and ignored");
          const payload = {
            segmentId: receipt.messageId,
            stat: receipt.stat,
            err: receipt.err,
            at: new Date().toISOString(),
            link: smppLink(config.smppUrl!),
            destination: receipt.destination,
            submittedMinute: receipt.submittedMinute?.toISOString() ?? null,
            text: receipt.text,
          };
          await receiptJobs.add({ kind: "smpp_receipt", payload, accountId: null });
        },
      });
    }
  }
}
