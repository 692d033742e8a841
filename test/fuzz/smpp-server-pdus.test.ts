// Property-based: random, truncated and mis-framed PDUs sent to the SMPP server for client applications
// (server/smppServer/) over raw TCP. Whatever comes in, the session either answers a following enquire_link or
// is closed (a frame that can never be whole, or one left incomplete until the server's own enquire_link goes
// unanswered), and the server keeps serving: a fresh client binds after every run.
import { Socket } from "node:net";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";

const server = useTestServer();
// A session left waiting for the rest of a frame is checked, and closed, quickly.
const smppServer = useSmppServer(server, {
  destinations: { internationalNetworks: false, blockedPrefixes: [] },
  enquireLinkMs: 300,
  responseTimeoutMs: 300,
});
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
// A fixed seed keeps CI reproducible; FUZZ_SEED=random explores (a failure prints the seed to replay it).
const SEED = process.env.FUZZ_SEED === "random" ? Date.now() : Number(process.env.FUZZ_SEED ?? 20261128);

beforeAll(async () => {
  const { accountId } = await server().account("fuzzed");
  await giveSmppCredentials(server, accountId, { systemId: "fuzz", password: "pw", maxBinds: 20 });
});

/** A PDU frame: header (length, command, status, sequence) and body. */
function frame(command: number, sequence: number, body: Buffer = Buffer.alloc(0), length = 16 + body.length): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32BE(length >>> 0, 0);
  header.writeUInt32BE(command >>> 0, 4);
  header.writeUInt32BE(0, 8);
  header.writeUInt32BE(sequence >>> 0, 12);
  return Buffer.concat([header, body]);
}

const ENQUIRE_LINK = 0x00000015;
const cstring = (s: string) => Buffer.concat([Buffer.from(s, "latin1"), Buffer.alloc(1)]);
/** bind_transceiver body: system_id, password, system_type, interface_version, addr_ton, addr_npi, address_range. */
const bindBody = (systemId: string, password: string) =>
  Buffer.concat([cstring(systemId), cstring(password), cstring(""), Buffer.from([0x34, 0, 0]), cstring("")]);

/** Connects, writes `bytes`, and reports what the server did with a response it waits for (or the close). */
async function exchange(bytes: Buffer, expectCommand: number, expectSequence: number, timeoutMs: number) {
  const socket = new Socket();
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.connect(smppServer().port, "127.0.0.1", () => resolve());
  });
  socket.on("error", () => {});
  let received = Buffer.alloc(0);
  const outcome = await new Promise<"answered" | "closed" | "silent">((resolve) => {
    const timer = setTimeout(() => resolve("silent"), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (let at = 0; at + 16 <= received.length;) {
        const length = received.readUInt32BE(at);
        if (length < 16 || at + length > received.length) break;
        if (received.readUInt32BE(at + 4) === expectCommand && received.readUInt32BE(at + 12) === expectSequence) {
          clearTimeout(timer);
          resolve("answered");
          return;
        }
        at += length;
      }
    });
    socket.once("close", () => {
      clearTimeout(timer);
      resolve("closed");
    });
    socket.write(bytes);
  });
  socket.destroy();
  return outcome;
}

const anyCommand = fc.oneof(
  fc.constantFrom(0x00000004, 0x00000009, 0x00000002, 0x00000001, 0x00000015, 0x00000006, 0x80000009, 0x80000004, 0x00000103),
  fc.integer({ min: 0, max: 0xffffffff }),
);
const garbage = fc.oneof(
  // Whole frames: a command (known or not) with a random body.
  fc
    .tuple(anyCommand, fc.integer({ min: 1, max: 0x7ffffffe }), fc.uint8Array({ maxLength: 300 }))
    .map(([command, seq, body]) => frame(command, seq, Buffer.from(body))),
  // Frames that claim another length than they have: longer (incomplete) or impossible (under a header).
  fc
    .tuple(anyCommand, fc.uint8Array({ maxLength: 60 }), fc.oneof(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 17, max: 70_000 })))
    .map(([command, body, length]) => frame(command, 1, Buffer.from(body), length)),
  // Bytes with no frame at all.
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b)),
);

describe("the SMPP server, fed malformed PDUs", () => {
  it("answers a following enquire_link or closes the session, and keeps binding fresh clients", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(garbage, async (bytes) => {
        // 1.5 s: the server's check of a silent session (300 ms + 300 ms) with room for a loaded machine.
        const outcome = await exchange(Buffer.concat([bytes, frame(ENQUIRE_LINK, 0x7fff0001)]), 0x80000015, 0x7fff0001, 1_500);
        expect(outcome).not.toBe("silent");
        expect(await exchange(frame(0x00000009, 0x7fff0002, bindBody("fuzz", "pw")), 0x80000009, 0x7fff0002, 5_000)).toBe("answered");
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
