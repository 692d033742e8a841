// The simulator wrapped in a provider that can lose what a dropped SMPP link or a killed worker loses, for
// the tests of unknown send outcomes (docs/RELIABILITY.md, "A crash costs at most what was on the wire").
import type { SimulatorProvider } from "../../server/providers/simulator.js";
import type { OutboundMessage, Provider, SubmitResult } from "../../server/providers/types.js";
import { SendWindow } from "../../server/providers/window.js";

export class LosingProvider implements Provider {
  readonly name = "simulator";
  readonly link = "simulator";
  readonly window: SendWindow;
  /** Recipients whose answers are lost after the carrier got the message (the link dropped after the write). */
  readonly losing = new Set<string>();
  /** Recipients whose messages never reach the carrier (the worker died between the claim and the write). */
  readonly dropping = new Set<string>();
  /** While set, submits wait for it: the window stays on the wire. */
  hold: Promise<void> | undefined;
  /** While set, answers wait for it after the carrier got the messages (a worker stalled before its write). */
  holdAnswers: Promise<void> | undefined;
  calls = 0;

  constructor(
    private readonly simulator: SimulatorProvider,
    windowSize: number,
  ) {
    this.window = new SendWindow(windowSize);
  }

  async submit(m: OutboundMessage): Promise<SubmitResult> {
    const [r] = await this.submitBatch([m]);
    if (r instanceof Error) throw r;
    return r!;
  }

  async submitBatch(messages: OutboundMessage[]): Promise<(SubmitResult | Error)[]> {
    this.calls++;
    await this.hold;
    const reaching = messages.filter((m) => !this.dropping.has(m.to));
    const answers = new Map((await this.simulator.submitBatch(reaching)).map((r, i) => [reaching[i]!, r]));
    await this.holdAnswers;
    return messages.map((m) => {
      const answer = answers.get(m);
      if (!answer) return new Error("the worker stopped before writing the PDU (test)");
      return this.losing.has(m.to) ? new Error("connection lost after the PDU was written (test)") : answer;
    });
  }
}
