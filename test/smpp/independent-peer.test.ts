// Once against an SMPP peer nobody here wrote: Net::SMPP's example SMSC (Debian's libnet-smpp-perl,
// installed by .ci/run). It binds, answers every submit_sm with message_id 123456789, and sends no receipts.
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import type { SmppProvider } from "../../server/providers/smpp/provider.js";
import type { Worker } from "../../server/worker.js";
import { startSmppTestWorker } from "../helpers/smsc.js";
import { useTestServer } from "../helpers/server.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const SMSC_PL = "/usr/share/doc/libnet-smpp-perl/examples/smsc.pl";
const available = systemPackagePresent({ neededBy: "the Net::SMPP peer test", file: SMSC_PL, debianPackage: "libnet-smpp-perl" });

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp" });
let smsc: ChildProcess | undefined;
let worker: Worker | undefined;
afterAll(async () => {
  await worker?.stop(1000);
  if (smsc?.pid) process.kill(-smsc.pid, "SIGKILL"); // the script forks a child per connection
});

const listening = () =>
  new Promise<boolean>((resolve) => {
    const s = connect(9900, "127.0.0.1", () => {
      s.destroy();
      resolve(true);
    }).on("error", () => resolve(false));
  });

describe.skipIf(!available)("against Net::SMPP's example SMSC", () => {
  it("binds as transceiver and submits a message, which is sent with the SMSC's message id", async () => {
    smsc = spawn("perl", [SMSC_PL, "3"], { stdio: "ignore", detached: true });
    await waitUntil("smsc.pl listening on 9900", listening, 10_000, 100);
    const s = server();
    worker = await startSmppTestWorker({
      db: s.db,
      databaseUrl: s.url,
      log: createLogger("silent"),
      config: { ...s.config, smppUrl: "smpp://GSMSGW:secret@127.0.0.1:9900" },
    });
    const connection = (worker.provider as SmppProvider).connection;
    await waitUntil("bound to smsc.pl", async () => connection.state === "bound", 10_000);
    const a = await s.account();
    const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550170", body: "hello from the other side", from: "ACME", scheduledAt: new Date(Date.now() + 1000).toISOString() },
    });
    const sent = await waitUntil("sent", async () => {
      const m = (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: data!.messageId } } })).data!;
      return m.status === "sent" && m;
    });
    expect(sent.providerMessageId).toBe("123456789");
  });
});
