// The SMPP server for client applications (server/smppServer/) in the test process, on a free port of
// 127.0.0.1 over the test server's database, started before the file's tests and stopped after them.
import smpp, { type PDU, type Session } from "smpp";
import { afterAll, beforeAll, expect } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startSmppServer, type SmppServer, type SmppServerOptions } from "../../server/smppServer/index.js";
import type { TestServer } from "./server.js";
import { deploymentDestinations } from "../../server/config.js";

export function useSmppServer(server: () => TestServer, overrides: Partial<SmppServerOptions> = {}): () => SmppServer {
  let smppServer: SmppServer | undefined;
  beforeAll(async () => {
    smppServer = await startSmppServer({
      db: server().db,
      log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
      port: 0,
      host: "127.0.0.1",
      destinations: deploymentDestinations(server().config),
      defaultCountry: undefined,
      enquireLinkMs: 60_000,
      responseTimeoutMs: 2_000,
      holdHours: 72,
      refreshMs: 100,
      forwardMs: 50,
      ...overrides,
    });
  });
  afterAll(() => smppServer?.stop());
  return () => smppServer!;
}

/** The operator gives the account SMPP credentials (through the operator API). */
export async function giveSmppCredentials(server: () => TestServer, accountId: string, body: Record<string, unknown>): Promise<void> {
  const res = await (await server().operator()).request("POST", `/api/v1/accounts/${accountId}/smpp-credentials`, body);
  expect(res.status, await res.clone().text()).toBe(201);
}

/** A client application's session, connected to the SMPP server on `port` and bound as a transceiver. */
export async function boundTransceiver(port: number, systemId: string, password: string): Promise<Session> {
  const session = smpp.connect({ url: `smpp://127.0.0.1:${port}` });
  session.on("error", () => {});
  await new Promise<void>((done) => session.socket.once("connect", () => done()));
  const resp = await new Promise<PDU>((resolve) => session.bind_transceiver({ system_id: systemId, password }, resolve));
  expect(resp.command_status).toBe(0);
  return session;
}
