// A test SMSC on 127.0.0.1 built on the `smpp` package's server: accepts binds, answers submit_sm (or not,
// as the test says), records every PDU, and sends delivery receipts on request. It can misbehave as a broken
// carrier does: send bytes that are no valid PDU, or stop answering altogether.
import smpp, { type PDU, type Session } from "smpp";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { createLogger } from "../../server/logger.js";
import type { SmppProvider } from "../../server/providers/smpp/provider.js";
import { startWorker, type Worker, type WorkerOptions } from "../../server/worker.js";
import { resolveDeploymentProvider } from "../../server/routing/index.js";
import type { TestServer } from "./server.js";
import { waitUntil } from "./wait.js";

export interface Smsc {
  url: string;
  submits: PDU[];
  /** When each of `submits` arrived (ms since the epoch), in the same order. */
  submitTimes: number[];
  binds: PDU[];
  unbinds: PDU[];
  sessions: () => Session[];
  /**
   * Decides the answer to a submit_sm: a command_status (0 = accepted), "hold" to answer later, "malformed"
   * to send `malformedPdu` in its place (and never answer it), or "cut" to send the first 10 bytes of its
   * submit_sm_resp and close the connection.
   */
  answer: (pdu: PDU, index: number) => number | "hold" | "malformed" | "cut";
  /** The message_id to answer a submit_sm with, when the test wants one (ids repeat on real SMSCs). */
  messageIdFor?: (pdu: PDU, index: number) => string | undefined;
  /** Bytes sent for a "malformed" answer; by default an 8-byte PDU (a length field of 8 and a command_id). */
  malformedPdu: Buffer;
  /** While true, nothing is answered: no bind_transceiver_resp, enquire_link_resp or submit_sm_resp. */
  silent: boolean;
  /**
   * The sessions open now stop answering anything, for good (and, with `stopReading`, stop reading their
   * socket, so what is sent to them piles up); sessions opened later answer as usual.
   */
  silenceOpenSessions: (opts?: { stopReading?: boolean }) => void;
  /** enquire_link PDUs received (answered or not). */
  enquireLinks: PDU[];
  /** Called right after a submit_sm was accepted, with its message_id. */
  afterAnswer?: (messageId: string) => void;
  /** Answers held submits now. */
  releaseHeld: () => void;
  /** Max unanswered submit_sm seen at once on one session. */
  maxUnanswered: number;
  /**
   * Sends a delivery receipt on a bound session; `source` (the message's destination, digits), `submitDate`
   * (YYMMDDhhmm) and `text` fill the receipt's fields as a carrier does.
   */
  receipt: (
    messageId: string,
    stat: string,
    opts?: { err?: string; tlv?: boolean; source?: string; submitDate?: string; text?: string },
  ) => Promise<PDU>;
  /** Sends a deliver_sm (or data_sm) with exactly these fields on a bound session; resolves with its response. */
  deliver: (fields: Record<string, unknown>, command?: "deliver_sm" | "data_sm") => Promise<PDU>;
  idOf: (pdu: PDU) => string;
  close: () => Promise<void>;
}

export async function startSmsc(credentials = { systemId: "test", password: "secret" }): Promise<Smsc> {
  let counter = 0;
  const ids = new Map<PDU, string>();
  const held: (() => void)[] = [];
  let unanswered = 0;
  const muted = new WeakSet<Session>();
  const quiet = (session: Session) => smsc.silent || muted.has(session);
  const smsc: Smsc = {
    url: "",
    submits: [],
    submitTimes: [],
    binds: [],
    unbinds: [],
    sessions: () => server.sessions,
    answer: () => 0,
    malformedPdu: Buffer.from([0, 0, 0, 8, 0, 0, 0, 4]),
    silent: false,
    silenceOpenSessions: (opts = {}) =>
      server.sessions.forEach((s) => {
        muted.add(s);
        if (opts.stopReading) s.pause();
      }),
    enquireLinks: [],
    releaseHeld: () => {
      for (const release of held.splice(0)) release();
    },
    maxUnanswered: 0,
    idOf: (pdu) => ids.get(pdu)!,
    receipt: (messageId, stat, opts = {}) =>
      new Promise((resolve) => {
        const session = server.sessions.find((s) => (s as Session & { bound?: boolean }).bound)!;
        session.deliver_sm(
          {
            esm_class: 0x04,
            source_addr: opts.source ?? "14155550123",
            destination_addr: "ACME",
            short_message: `id:${messageId} sub:001 dlvrd:001 submit date:${opts.submitDate ?? "2611221000"} done date:2611221001 stat:${stat} err:${opts.err ?? "000"} text:${opts.text ?? ""}`,
            ...(opts.tlv ? { receipted_message_id: messageId, message_state: { DELIVRD: 2, UNDELIV: 5, REJECTD: 8 }[stat] } : {}),
          },
          resolve,
        );
      }),
    deliver: (fields, command = "deliver_sm") =>
      new Promise((resolve) => {
        const session = server.sessions.find((s) => (s as Session & { bound?: boolean }).bound)!;
        session.send(new smpp.PDU(command, fields), resolve);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of [...server.sessions]) s.destroy(); // close() would wait for a session that stopped reading
        server.close(() => resolve());
      }),
  };
  const server = smpp.createServer((session) => {
    session.on("bind_transceiver", (pdu: PDU) => {
      smsc.binds.push(pdu);
      if (quiet(session)) return;
      const ok = pdu.system_id === credentials.systemId && pdu.password === credentials.password;
      (session as Session & { bound?: boolean }).bound = ok;
      session.send(pdu.response({ command_status: ok ? 0 : smpp.errors.ESME_RBINDFAIL }));
    });
    session.on("enquire_link", (pdu: PDU) => {
      smsc.enquireLinks.push(pdu);
      if (!quiet(session)) session.send(pdu.response());
    });
    session.on("unbind", (pdu: PDU) => {
      smsc.unbinds.push(pdu);
      session.send(pdu.response());
      session.close();
    });
    session.on("submit_sm", (pdu: PDU) => {
      const index = smsc.submits.length;
      smsc.submits.push(pdu);
      smsc.submitTimes.push(Date.now());
      unanswered++;
      smsc.maxUnanswered = Math.max(smsc.maxUnanswered, unanswered);
      const respond = (status: number) => {
        unanswered--;
        const id = smsc.messageIdFor?.(pdu, index) ?? `smsc-${++counter}`;
        if (status === 0) ids.set(pdu, id);
        session.send(pdu.response(status === 0 ? { message_id: id } : { command_status: status }));
        if (status === 0) smsc.afterAnswer?.(id);
      };
      if (quiet(session)) return;
      const decision = smsc.answer(pdu, index);
      if (decision === "malformed") session.socket.write(smsc.malformedPdu);
      else if (decision === "cut") session.socket.end(pdu.response({ message_id: "cut-short" }).toBuffer().subarray(0, 10));
      else if (decision === "hold") held.push(() => respond(0));
      else respond(decision);
    });
    session.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  smsc.url = `smpp://${credentials.systemId}:${credentials.password}@127.0.0.1:${(server.address() as AddressInfo).port}`;
  return smsc;
}

/**
 * A worker as one started with PROVIDER=smpp and SMPP_URL (`config.smppUrl`) on a fresh deployment: the `default`
 * connector and its catch-all route are made first (routing/deploymentProvider.ts) when no connector exists.
 */
export async function startSmppTestWorker(opts: WorkerOptions): Promise<Worker> {
  await resolveDeploymentProvider(opts.db, { ...opts.config, provider: "smpp" }, createLogger("silent"));
  return startWorker(opts);
}

/**
 * For a test file: an SMSC on 127.0.0.1 and a worker of the file's server bound to it over SMPP (the server's
 * config with `smppUrl` pointing at the SMSC), both stopped after the file. `stop` stops the worker once, whoever
 * calls it first (a test that stops it itself, or the file's end).
 */
export function useSmppWorker(server: () => TestServer): {
  smsc: () => Smsc;
  worker: () => Worker;
  stop: (deadlineMs?: number) => Promise<void>;
} {
  let smsc: Smsc | undefined;
  let worker: Worker | undefined;
  beforeAll(async () => {
    smsc = await startSmsc();
    const s = server();
    worker = await startSmppTestWorker({
      db: s.db,
      databaseUrl: s.url,
      log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
      config: { ...s.config, smppUrl: smsc.url },
    });
    const connection = (worker.provider as SmppProvider).connection;
    await waitUntil("SMPP bound", async () => connection.state === "bound");
  });
  let stopping: Promise<void> | undefined;
  const stop = (deadlineMs = 1000) => (stopping ??= worker ? worker.stop(deadlineMs) : Promise.resolve());
  afterAll(async () => {
    await stop();
    await smsc?.close();
  });
  return { smsc: () => smsc!, worker: () => worker!, stop };
}
