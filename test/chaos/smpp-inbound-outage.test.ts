// Chaos: PostgreSQL stops while the SMSC (the Net::SMPP peer, test/helpers/smsc-peer.pl) delivers a mobile-
// originated message to a worker process. The worker cannot store it, so it answers the deliver_sm with an error
// status and the SMSC sends it again (every 200 ms here, as carriers retry); once PostgreSQL is back the next
// copy is stored and acknowledged. Nothing is lost and it is stored once.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../../server/db/embedded.js";
import { createDb, migrateLatest } from "../../server/db/knex.js";
import { insertNumber } from "../../server/db/numbers.js";
import { createLogger } from "../../server/logger.js";
import { spawnProcess, type Spawned } from "../helpers/process.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";
import { waitUntil } from "../helpers/wait.js";

const available = systemPackagePresent({
  neededBy: "the SMPP inbound outage test",
  file: "/usr/share/perl5/Net/SMPP.pm",
  debianPackage: "libnet-smpp-perl",
});

const dir = mkdtempSync(join(tmpdir(), "sms-inbound-outage-"));
chmodSync(dir, 0o755);
let pgServer: EmbeddedDatabase | undefined;
let peer: ChildProcess | undefined;
let worker: Spawned | undefined;
afterAll(async () => {
  worker?.child.kill("SIGKILL");
  peer?.kill("SIGKILL");
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!available)("SMPP inbound while PostgreSQL is down", { timeout: 180_000 }, () => {
  it("refuses the deliver_sm while it cannot store it, and stores the SMSC's retry once when PostgreSQL is back", async () => {
    const pgPort = await freePort();
    const start = () => startEmbeddedPostgres({ dataDir: dir, log: createLogger("silent"), announce: false, port: pgPort });
    pgServer = await start();
    const setup = createDb(pgServer.url, 2);
    await migrateLatest(setup);
    const account = await ensureAccount(setup, "inbound-outage");
    await insertNumber(setup, account.id, { phoneNumber: "+14155550650", name: null, selfService: false });
    await setup.destroy();

    let peerLog = "";
    peer = spawn("perl", ["test/helpers/smsc-peer.pl", "200"], { stdio: ["pipe", "pipe", "inherit"] });
    peer.stdout!.on("data", (chunk: Buffer) => (peerLog += chunk.toString()));
    const smscPort = Number((await waitUntil("the peer listening", async () => /LISTENING (\d+)/.exec(peerLog)))[1]);
    worker = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
      ROLE: "worker",
      DATABASE_URL: pgServer.url,
      LOG_LEVEL: "info",
      PROVIDER: "smpp",
      SMPP_URL: `smpp://outage:secret@127.0.0.1:${smscPort}`,
    });
    // Started (a worker whose database goes away while it starts exits, for its supervisor to restart it).
    await worker.waitFor(/SMPP bound as transceiver/, 60_000);
    await worker.waitFor(/job runner started/, 60_000);

    await pgServer.stop();
    peer.stdin!.write(`MO outage 14155550651 14155550650 0 ${Buffer.from("Where is my parcel?").toString("hex")}\n`);
    const acks = () => [...peerLog.matchAll(/^MOACK outage (\d+)$/gm)].map((m) => Number(m[1]));
    // Refused while the database is down (not acknowledged and lost), and sent again by the SMSC.
    await waitUntil("two refusals", async () => acks().filter((s) => s !== 0).length >= 2, 30_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\npeer:\n${peerLog}\nworker:\n${worker!.output().slice(-4000)}`, { cause: error });
    });
    expect(acks()).not.toContain(0);

    pgServer = await start();
    await waitUntil("acknowledged once PostgreSQL is back", async () => acks().includes(0), 60_000);
    const db = createDb(pgServer.url, 2);
    try {
      const rows = await db("messages").where({ account_id: account.id, direction: "inbound" }).select("body", "status");
      expect(rows).toEqual([{ body: "Where is my parcel?", status: "received" }]);
      expect(acks().filter((s) => s === 0)).toHaveLength(1);
      expect(
        acks()
          .filter((s) => s !== 0)
          .every((s) => s === 0x08),
      ).toBe(true); // ESME_RSYSERR
    } finally {
      await db.destroy();
    }
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });
});
