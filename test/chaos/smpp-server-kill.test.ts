// Chaos: the SMPP server process for client applications (ROLE=smpp) SIGKILLed with receipts out to a client
// that has not answered them. Nothing acknowledged is lost: the receipts' leases run out, and a new server
// process sends every one to the client when it binds again (docs/SMPP.md, "For client applications": at
// least once).
import { createServer } from "node:net";
import smpp, { type PDU, type Session } from "smpp";
import { afterAll, describe, expect, it } from "vitest";
import { spawnProcess, type Spawned } from "../helpers/process.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig });
useTestWorker(server);
const processes: Spawned[] = [];
const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions) s.destroy();
  for (const p of processes) p.child.kill("SIGKILL");
  await Promise.all(processes.map((p) => p.exited));
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function startSmppProcess(port: number): Promise<Spawned> {
  const proc = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
    ROLE: "smpp",
    DATABASE_URL: server().url,
    LOG_LEVEL: "info",
    SMPP_SERVER_PORT: String(port),
    SMPP_SERVER_HOST: "127.0.0.1",
    SMPP_RESPONSE_TIMEOUT_MS: "1000",
  });
  processes.push(proc);
  await proc.waitFor(/SMPP server listening/, 30_000);
  return proc;
}

/** A bound transceiver collecting deliver_sm, answering them only when `answering()` says so. */
async function client(port: number, answering: () => boolean) {
  const session = smpp.connect({ url: `smpp://127.0.0.1:${port}` });
  sessions.push(session);
  session.on("error", () => {});
  const received: PDU[] = [];
  session.on("deliver_sm", (pdu: PDU) => {
    received.push(pdu);
    if (answering()) session.send(pdu.response());
  });
  await new Promise<void>((resolve) => session.socket.once("connect", () => resolve()));
  const resp = await new Promise<PDU>((resolve) => session.bind_transceiver({ system_id: "killed", password: "pw" }, resolve));
  expect(resp.command_status).toBe(0);
  return { session, received };
}

describe("the SMPP server process killed with receipts out", () => {
  it("loses none of them: a new process sends every one when the client binds again", { timeout: 120_000 }, async () => {
    const { accountId } = await server().account("smpp-killed");
    const created = await (
      await server().operator()
    ).request("POST", `/api/v1/accounts/${accountId}/smpp-credentials`, {
      systemId: "killed",
      password: "pw",
    });
    expect(created.status).toBe(201);
    const port = await freePort();
    const first = await startSmppProcess(port);
    const silent = await client(port, () => false);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const resp = await new Promise<PDU>((resolve) =>
        silent.session.submit_sm(
          {
            source_addr_ton: 5,
            source_addr: "ACME",
            dest_addr_ton: 1,
            destination_addr: "14155550123",
            short_message: `kill ${i}`,
            registered_delivery: 1,
          },
          resolve,
        ),
      );
      expect(resp.command_status).toBe(0);
      ids.push(resp.message_id as string);
    }
    await waitUntil(
      "the five receipts sent and not answered",
      async () => new Set(silent.received.map((p) => p.receipted_message_id)).size === 5 || undefined,
      30_000,
    );
    first.child.kill("SIGKILL");
    await first.exited;
    silent.session.destroy();

    await startSmppProcess(port);
    const back = await client(port, () => true);
    await waitUntil(
      "every receipt again after the restart",
      async () => ids.every((id) => back.received.some((p) => p.receipted_message_id === id)) || undefined,
      30_000,
    );
    await waitUntil(
      "none left waiting",
      async () => Number((await server().db("smpp_outbox").where({ account_id: accountId }).count({ n: "*" }))[0]!.n) === 0 || undefined,
    );
  });
});
