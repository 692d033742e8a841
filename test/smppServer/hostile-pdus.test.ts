// Hostile PDUs at the SMPP server for client applications (server/smppServer/), over raw TCP on 127.0.0.1: every
// command of SMPP 3.4 as the `smpp` package's command table lists it (and ids it does not know), before and after
// a bind, then truncated frames, frames whose command_length can never be whole, and seeded random bytes. Each
// request is answered as the server serves it (its own `_resp`) or with generic_nack ESME_RINVCMDID; a response
// sent unasked is ignored; a frame that cannot be whole closes that session only. Throughout, the process keeps
// serving HTTP (GET /healthz 200) and another bound session (enquire_link answered): one client's bytes never
// end the process (`outbind` and `alert_notification`, which have no `_resp`, once did).
import { Socket } from "node:net";
import smpp, { type PDU, type Session } from "smpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";

const server = useTestServer();
const smppServer = useSmppServer(server);
// A second server whose check of a silent session is quick: a frame left incomplete ends in its session closed.
const quickServer = useSmppServer(server, { enquireLinkMs: 300, responseTimeoutMs: 300 });

const e = smpp.errors;
const ENQUIRE_LINK = 0x00000015;
const ENQUIRE_LINK_RESP = 0x80000015;
const BINDS = new Set(["bind_transmitter", "bind_receiver", "bind_transceiver"]);

/** Every command id the `smpp` package knows (SMPP 3.4's table), with a few it does not. */
const commands = (smpp as unknown as { commands: Record<string, { id: number }> }).commands;
const KNOWN = Object.entries(commands).map(([name, c]) => ({ name, id: c.id }));
const UNKNOWN = [0x00000099, 0x7fffffff, 0x00000010, 0x00010200, 0x80000099, 0xffffffff].map((id) => ({ name: "unknown", id }));

/** A command's frame as the package writes it with default fields, else (it cannot) a bare header. */
function frameOf(name: string, id: number, sequence: number): Buffer {
  if (name !== "unknown") {
    try {
      const pdu = new smpp.PDU(name, {});
      pdu.sequence_number = sequence;
      return pdu.toBuffer();
    } catch {
      // fall through: the header alone
    }
  }
  return header(id, sequence);
}

function header(command: number, sequence: number, length = 16, body: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(16);
  h.writeUInt32BE(length >>> 0, 0);
  h.writeUInt32BE(command >>> 0, 4);
  h.writeUInt32BE(0, 8);
  h.writeUInt32BE(sequence >>> 0, 12);
  return Buffer.concat([h, body]);
}

/** A raw client: writes bytes, reads whole frames, tells when the server closed the connection. */
class RawClient {
  readonly socket = new Socket();
  private buffer = Buffer.alloc(0);
  private readonly frames: PDU[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  static async open(port: number): Promise<RawClient> {
    const c = new RawClient();
    await new Promise<void>((resolve, reject) => {
      c.socket.once("error", reject);
      c.socket.connect(port, "127.0.0.1", () => resolve());
    });
    c.socket.on("error", () => {});
    c.socket.on("data", (chunk: Buffer) => {
      c.buffer = Buffer.concat([c.buffer, chunk]);
      while (c.buffer.length >= 16 && c.buffer.length >= c.buffer.readUInt32BE(0)) {
        const length = c.buffer.readUInt32BE(0);
        c.frames.push(new smpp.PDU(c.buffer.subarray(0, length)));
        c.buffer = c.buffer.subarray(length);
      }
      c.waiter?.();
    });
    c.socket.on("close", () => {
      c.closed = true;
      c.waiter?.();
    });
    return c;
  }

  /** The frames the server sent until `until` matched one (included), or "closed" when it closed first. */
  async readUntil(until: (p: PDU) => boolean): Promise<PDU[] | "closed"> {
    for (;;) {
      const at = this.frames.findIndex(until);
      if (at >= 0) return this.frames.splice(0, at + 1);
      if (this.closed) return "closed";
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /**
   * Writes `bytes` then an enquire_link; what the server sent until it answered the enquire_link and (with
   * `answerTo`, a request's sequence_number: a bind or submit is answered after the database) that request too,
   * the enquire_link's answer left out; or "closed".
   */
  async exchange(bytes: Buffer, sequence: number, answerTo?: number): Promise<PDU[] | "closed"> {
    this.socket.write(Buffer.concat([bytes, header(ENQUIRE_LINK, sequence)]));
    const isPing = (p: PDU) => p.command_id === ENQUIRE_LINK_RESP && p.sequence_number === sequence;
    const got: PDU[] = [];
    let pinged = false;
    let answered = answerTo === undefined;
    while (!pinged || !answered) {
      const more = await this.readUntil((p) => (!pinged && isPing(p)) || (!answered && !isPing(p) && p.sequence_number === answerTo));
      if (more === "closed") return more;
      for (const p of more) {
        if (isPing(p)) pinged = true;
        else {
          if (p.sequence_number === answerTo) answered = true;
          got.push(p);
        }
      }
    }
    return got;
  }
}

let control: Session;
const quickRaw: RawClient[] = [];

beforeAll(async () => {
  const { accountId } = await server().account("hostile");
  await giveSmppCredentials(server, accountId, { systemId: "hostile", password: "pw", maxBinds: 20 });
  control = smpp.connect({ url: `smpp://127.0.0.1:${smppServer().port}` });
  control.on("error", () => {});
  await new Promise<void>((done) => control.socket.once("connect", () => done()));
  const resp = await new Promise<PDU>((resolve) => control.bind_transceiver({ system_id: "hostile", password: "pw" }, resolve));
  expect(resp.command_status).toBe(0);
});
afterAll(() => {
  control?.destroy();
  for (const c of quickRaw) c.socket.destroy();
});

/** The process still serves: HTTP answers 200 and the bound control session answers enquire_link. */
async function stillServing(): Promise<void> {
  expect((await fetch(`${server().baseUrl}/healthz`)).status).toBe(200);
  const resp = await new Promise<PDU>((resolve) => control.enquire_link({}, resolve));
  expect(resp.command_status).toBe(0);
}

/** What the server must answer to `name` (a request), on a session bound or not. */
function expected(name: string, id: number, bound: boolean): { command: string; status: (s: number) => boolean } | "nothing" {
  if (id & 0x80000000) return "nothing"; // a response (known or not) sent unasked: ignored
  if (name === "unknown") return { command: "generic_nack", status: (s) => s === e.ESME_RINVCMDID };
  if (BINDS.has(name)) return { command: `${name}_resp`, status: (s) => s === (bound ? e.ESME_RALYBND : e.ESME_RINVSYSID) };
  if (name === "enquire_link") return { command: "enquire_link_resp", status: (s) => s === 0 };
  // An empty submit_sm: refused for what it lacks (no bind, then no destination), never a system error.
  if (name === "submit_sm")
    return { command: "submit_sm_resp", status: (s) => (bound ? s !== 0 && s !== e.ESME_RSYSERR : s === e.ESME_RINVBNDSTS) };
  return { command: "generic_nack", status: (s) => s === e.ESME_RINVCMDID };
}

describe("the SMPP server, sent every command and hostile bytes", () => {
  it("lists SMPP 3.4's commands, outbind and alert_notification among them", () => {
    const names = KNOWN.map((c) => c.name);
    for (const n of ["outbind", "alert_notification", "data_sm", "query_sm", "cancel_sm", "replace_sm", "submit_multi", "generic_nack"])
      expect(names).toContain(n);
  });

  for (const bound of [false, true]) {
    it(`answers every command id ${bound ? "after" : "before"} a bind as it serves it, or generic_nack ESME_RINVCMDID`, async () => {
      const c = await RawClient.open(smppServer().port);
      try {
        let sequence = 1;
        if (bound) {
          const pdu = new smpp.PDU("bind_transceiver", { system_id: "hostile", password: "pw" });
          pdu.sequence_number = sequence;
          const got = await c.exchange(pdu.toBuffer(), ++sequence, pdu.sequence_number);
          expect(got).not.toBe("closed");
          expect((got as PDU[]).map((p) => [p.command, p.command_status])).toEqual([["bind_transceiver_resp", 0]]);
        }
        for (const { name, id } of [...KNOWN, ...UNKNOWN]) {
          if (name === "unbind") continue; // ends the session: below
          const seq = ++sequence;
          const want = expected(name, id, bound);
          const got = await c.exchange(frameOf(name, id, seq), ++sequence, want === "nothing" ? undefined : seq);
          const what = `${name} (0x${id.toString(16)})`;
          expect(got, what).not.toBe("closed");
          const answers = got as PDU[];
          if (want === "nothing") {
            expect(
              answers.map((p) => p.command),
              what,
            ).toEqual([]);
            continue;
          }
          expect(
            answers.map((p) => [p.command, p.sequence_number]),
            what,
          ).toEqual([[want.command, seq]]);
          expect(want.status(answers[0]!.command_status), `${what}: status ${answers[0]!.command_status}`).toBe(true);
        }
        // unbind is answered, then the session ends.
        const seq = ++sequence;
        c.socket.write(frameOf("unbind", 0x06, seq));
        const got = await c.readUntil((p) => p.sequence_number === seq);
        expect(got === "closed" ? got : got.map((p) => p.command)).toEqual(["unbind_resp"]);
        expect(await c.readUntil(() => false)).toBe("closed");
      } finally {
        c.socket.destroy();
      }
      await stillServing();
    });
  }

  it("closes a session whose frame cannot be whole (command_length under 16 or over the maximum), and only it", async () => {
    for (const length of [0, 1, 4, 15, smpp.PDU.maxLength + 1, 0x7fffffff, 0xffffffff]) {
      const c = await RawClient.open(smppServer().port);
      expect(await c.exchange(header(0x0b, 7, length), 8), `command_length ${length}`).toBe("closed");
      await stillServing();
    }
  });

  it("answers a whole frame whose body is cut short or runs over, and closes a session left with a partial frame", async () => {
    // Whole frames (command_length as sent) with bodies too short for their fields, or with bytes past them.
    const c = await RawClient.open(smppServer().port);
    let sequence = 100;
    for (const { name, id } of KNOWN) {
      if (name === "unbind" || id & 0x80000000) continue;
      const full = frameOf(name, id, ++sequence);
      for (const cut of [17, Math.max(17, full.length - 1), full.length + 40]) {
        const body =
          cut <= full.length ? full.subarray(16, cut) : Buffer.concat([full.subarray(16), Buffer.alloc(cut - full.length, 0xff)]);
        const seq = ++sequence;
        const got = await c.exchange(header(id, seq, 16 + body.length, body), ++sequence);
        expect(got, `${name} cut to ${cut}`).not.toBe("closed");
        for (const p of got as PDU[]) expect(p.command_status, `${name} cut to ${cut}: ${p.command}`).not.toBe(e.ESME_RSYSERR);
      }
    }
    c.socket.destroy();
    // A frame whose rest never comes: the server's own enquire_link goes unanswered and the session is closed.
    for (const command of [0x0b, 0x102, 0x04]) {
      const partial = await RawClient.open(quickServer().port);
      quickRaw.push(partial);
      partial.socket.write(header(command, 9, 64).subarray(0, 20));
      expect(await partial.readUntil(() => false)).toBe("closed");
    }
    await stillServing();
  });

  it(
    "survives seeded random bytes and random frames: each session is answered or closed, the process serves on",
    { timeout: 120_000 },
    async () => {
      // mulberry32: a small deterministic PRNG, so every run sends the same bytes.
      let state = 20261128;
      const random = () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
      const ids = [...KNOWN, ...UNKNOWN].map((c) => c.id);
      for (let run = 0; run < 60; run++) {
        const kind = run % 3;
        const payload =
          kind === 0
            ? bytes(1 + Math.floor(random() * 200)) // no frame at all
            : kind === 1 // a known (or unknown) command with a random body, its length right
              ? (() => {
                  const body = bytes(Math.floor(random() * 300));
                  return header(ids[Math.floor(random() * ids.length)]!, 1 + Math.floor(random() * 1000), 16 + body.length, body);
                })()
              : header(ids[Math.floor(random() * ids.length)]!, 1, 16 + Math.floor(random() * 4000), bytes(Math.floor(random() * 40)));
        const c = await RawClient.open(quickServer().port);
        quickRaw.push(c);
        const got = await c.exchange(payload, 0x7fff0000 + run);
        if (got !== "closed") for (const p of got) expect(p.command_status, `run ${run}: ${p.command}`).not.toBe(e.ESME_RSYSERR);
        c.socket.destroy();
      }
      await stillServing();
    },
  );
});
