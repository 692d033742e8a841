// The default provider: a simulated carrier (docs/API.md, "Provider"). It decides by the last four digits of
// `to`:
//   0001 rejected at submit → failed;  0002 → sent, then undelivered;  0003 → sent, never a final status;
//   anything else → sent, then delivered after SIMULATOR_DELIVERY_DELAY_MS.
// Like a real carrier it answers the submit with an id and reports the outcome later, asynchronously: the
// report is a provider_report job, the same path an SMPP delivery receipt takes. Every submission is recorded
// in simulator_submissions (the carrier's own books), so tests can count provider calls across processes.
import { uuidv7 } from "../domain/uuidv7.js";
import type { Db } from "../db/knex.js";
import { recordSimulatorSubmissions, type SimulatedSubmission } from "../db/simulatorSubmissions.js";
import type { JobPayload } from "../db/jobs/index.js";
import type { OutboundMessage, Provider, SubmitResult } from "./types.js";
import { SendWindow } from "./window.js";

const REJECTED = { code: "rejected", message: "The carrier rejected the message (simulated for numbers ending in 0001)." };
const INACTIVE = { code: "number_inactive", message: "The number is inactive (simulated for numbers ending in 0002)." };

export class SimulatorProvider implements Provider {
  readonly name = "simulator";
  readonly link = "simulator";
  readonly window: SendWindow;

  constructor(
    private readonly db: Db,
    private readonly deliveryDelayMs: number,
    /** Simulated carrier latency of the submit itself (a real submit_sm_resp takes tens of ms). */
    private readonly submitDelayMs = 0,
    /** Messages on the wire at once (SMPP's is SMPP_MAX_IN_FLIGHT); wide, as the simulator takes a window in one statement. */
    windowSize = 100,
  ) {
    this.window = new SendWindow(windowSize);
  }

  async submit(message: OutboundMessage): Promise<SubmitResult> {
    return (await this.submitBatch([message]))[0]!;
  }

  async submitBatch(messages: OutboundMessage[]): Promise<SubmitResult[]> {
    const reportAt = new Date(Date.now() + this.deliveryDelayMs);
    // Like an SMSC's receipt, the report names the destination, the submit time and the text's start.
    const facts = (m: OutboundMessage) => ({ destination: m.to, submittedAt: new Date().toISOString(), text: m.body.slice(0, 20) });
    const submissions: SimulatedSubmission[] = [];
    const results = messages.map((message): SubmitResult => {
      const suffix = message.to.slice(-4);
      const providerMessageId = `sim-${uuidv7()}`;
      const report: JobPayload<"provider_report"> | undefined =
        suffix === "0001" || suffix === "0003"
          ? undefined
          : suffix === "0002"
            ? { providerMessageId, status: "undelivered", error: INACTIVE, ...facts(message) }
            : { providerMessageId, status: "delivered", ...facts(message) };
      const outcome = suffix === "0001" ? "rejected" : (report?.status ?? "no_report");
      submissions.push({
        messageId: message.messageId,
        providerMessageId,
        recipient: message.to,
        outcome,
        report,
        priority: message.priority ?? "normal",
        accountId: message.accountId ?? null,
      });
      return suffix === "0001" ? { accepted: false, ...REJECTED } : { accepted: true, providerMessageId };
    });
    // The carrier has it once recorded; its answer takes the latency (a worker dying meanwhile leaves an unknown
    // outcome that the report resolves, as with SMPP).
    await recordSimulatorSubmissions(this.db, submissions, reportAt);
    if (this.submitDelayMs > 0) await new Promise((r) => setTimeout(r, this.submitDelayMs));
    return results;
  }
}
