// The default provider: a simulated carrier. It decides by the last four digits of `to` (CONTRACT.md):
//   0001 rejected at submit → failed;  0002 → sent, then undelivered;  0003 → sent, never a final status;
//   anything else → sent, then delivered after SIMULATOR_DELIVERY_DELAY_MS.
// Like a real carrier it answers the submit with an id and reports the outcome later, asynchronously: the
// report is a provider_report job, the same path an SMPP delivery receipt takes. Every submission is recorded
// in simulator_submissions (the carrier's own books), so tests can count provider calls across processes.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/knex.js";
import { recordSimulatorSubmission } from "../db/simulatorSubmissions.js";
import { PROVIDER_REPORT_JOB, type ProviderReportPayload } from "../jobs/handlers/providerReport.js";
import type { OutboundMessage, Provider, SubmitResult } from "./types.js";

export class SimulatorProvider implements Provider {
  readonly name = "simulator";

  constructor(
    private readonly db: Db,
    private readonly deliveryDelayMs: number,
    /** Simulated carrier latency of the submit itself (a real submit_sm_resp takes tens of ms). */
    private readonly submitDelayMs = 0,
  ) {}

  async submit(message: OutboundMessage): Promise<SubmitResult> {
    if (this.submitDelayMs > 0) await new Promise((r) => setTimeout(r, this.submitDelayMs));
    const suffix = message.to.slice(-4);
    const providerMessageId = `sim-${randomUUID()}`;
    if (suffix === "0001") {
      await recordSimulatorSubmission(this.db, { messageId: message.messageId, providerMessageId, recipient: message.to, outcome: "rejected" });
      return { accepted: false, code: "rejected", message: "The carrier rejected the message (simulated for numbers ending in 0001)." };
    }
    const report: ProviderReportPayload | undefined =
      suffix === "0003"
        ? undefined
        : suffix === "0002"
          ? { providerMessageId, status: "undelivered", error: { code: "number_inactive", message: "The number is inactive (simulated for numbers ending in 0002)." } }
          : { providerMessageId, status: "delivered" };
    await recordSimulatorSubmission(
      this.db,
      { messageId: message.messageId, providerMessageId, recipient: message.to, outcome: report?.status ?? "no_report" },
      report && { kind: PROVIDER_REPORT_JOB, payload: { ...report }, runAt: new Date(Date.now() + this.deliveryDelayMs), maxAttempts: 10 },
    );
    return { accepted: true, providerMessageId };
  }
}
