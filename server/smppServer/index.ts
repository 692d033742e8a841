// The SMPP server for client applications (docs/SMPP.md, "For client applications"): accounts' applications
// bind to SMPP_SERVER_PORT with the SMPP credentials the operator gave them, and submit messages as the HTTP API
// accepts them. This process's sessions live here; each one's state is clientSession.ts's. Every second the
// process refreshes its binds' rows (smpp_binds: maxBinds counts the binds of every process), unbinds the
// sessions whose credentials were deleted, and writes its submit counts (smpp_server_counters, for /metrics).
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import { refreshSmppBinds } from "../operator/index.js";
import { writeSmppServerCounters, type SubmitCounts } from "../db/smppServerCounters.js";
import { ClientSession } from "./clientSession.js";
import { outboxForwarder } from "./outboxForwarder.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

export interface SmppServerOptions {
  db: Db;
  log: Logger;
  port: number;
  host: string;
  destinations: DeploymentDestinations;
  defaultCountry: string | undefined;
  enquireLinkMs: number;
  responseTimeoutMs: number;
  /** How often binds are refreshed and deleted credentials' binds unbound (default 1 s). */
  refreshMs?: number;
  /** How long receipts wait for a receiver of their account (SMPP_SERVER_HOLD_HOURS). */
  holdHours: number;
  /** How often waiting receipts are looked for (default 200 ms). */
  forwardMs?: number;
  /** How long the parts of a concatenated submit_sm wait for the rest (default 10 minutes), and how often the
   * expired ones (and entries past the hold) are swept (default a minute). */
  partMaxAgeMs?: number;
  sweepMs?: number;
  /** At most this many incomplete multipart messages per account (SMPP_SERVER_MAX_OPEN_PARTS, default 1000). */
  maxOpenParts?: number;
  /** SMPP over TLS as well, on its own port, with this certificate and key (PEM). */
  tls?: { port: number; cert: Buffer; key: Buffer };
}

export interface SmppServer {
  /** The port it listens on (the one asked for, or the one given for 0). */
  port: number;
  /** The TLS port, when there is one. */
  tlsPort?: number;
  /** Unbinds every client, then closes. */
  stop(): Promise<void>;
}

/** The service's system_id in bind responses. */
const SERVER_SYSTEM_ID = "sms-platform";

export async function startSmppServer(opts: SmppServerOptions): Promise<SmppServer> {
  const log = opts.log.child({ component: "smpp-server" });
  const serverId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const sessions = new Set<ClientSession>();
  // This process's submit counts since it started, written whole to smpp_server_counters with each refresh.
  const counts = new Map<string, SubmitCounts>();
  const accept = (socket: Socket) => {
    sessions.add(
      new ClientSession(socket, {
        db: opts.db,
        log,
        serverId,
        systemId: SERVER_SYSTEM_ID,
        destinations: opts.destinations,
        defaultCountry: opts.defaultCountry,
        enquireLinkMs: opts.enquireLinkMs,
        responseTimeoutMs: opts.responseTimeoutMs,
        maxOpenParts: opts.maxOpenParts ?? 1000,
        closed: (s) => sessions.delete(s),
        counted: (accountId, outcome) => {
          const c = counts.get(accountId) ?? { accountId, accepted: 0, refused: 0, throttled: 0 };
          c[outcome]++;
          counts.set(accountId, c);
        },
      }),
    );
  };
  // A TLS handshake that fails ends that connection alone (tlsClientError), before any session exists.
  const servers: Server[] = [createServer(accept)];
  if (opts.tls) {
    const secure = createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, accept);
    secure.on("tlsClientError", (error) => log.debug({ err: error }, "SMPP TLS handshake failed"));
    servers.push(secure);
  }
  const forward = outboxForwarder({
    db: opts.db,
    log,
    serverId,
    sessions: () => sessions,
    leaseMs: opts.responseTimeoutMs + 1000,
    holdHours: opts.holdHours,
    partMaxAgeMs: opts.partMaxAgeMs ?? 10 * 60_000,
    sweepMs: opts.sweepMs ?? 60_000,
  });
  let forwarding = false;
  let stopped = false;
  const forwarder = setInterval(() => {
    if (forwarding) return;
    forwarding = true;
    const drain = async () => {
      while ((await forward()).full && !stopped);
    };
    drain()
      .catch((error: unknown) => log.warn({ err: error }, "forwarding to SMPP clients failed"))
      .finally(() => (forwarding = false));
  }, opts.forwardMs ?? 200);
  forwarder.unref();
  let refreshing = false;
  const refresh = setInterval(() => {
    if (refreshing) return;
    refreshing = true;
    const bound = [...sessions].filter((s) => s.systemId !== undefined);
    const counted = [...counts.values()].map((c) => ({ ...c }));
    refreshSmppBinds(
      opts.db,
      serverId,
      bound.map((s) => s.id),
    )
      .then(async (gone) => {
        for (const s of bound) if (gone.includes(s.id)) void s.unbind("its credentials were deleted");
        await writeSmppServerCounters(opts.db, serverId, counted);
      })
      .catch((error: unknown) => log.warn({ err: error }, "refreshing SMPP binds failed"))
      .finally(() => (refreshing = false));
  }, opts.refreshMs ?? 1000);
  refresh.unref();
  const ports = await Promise.all(
    servers.map(
      (server, i) =>
        new Promise<number>((resolve, reject) => {
          server.once("error", reject);
          server.listen(i === 0 ? opts.port : opts.tls!.port, opts.host, () => {
            const address = server.address();
            resolve(typeof address === "object" && address ? address.port : 0);
          });
        }),
    ),
  );
  const [port, tlsPort] = ports as [number, number | undefined];
  log.info({ port, tlsPort }, `SMPP server listening on port ${port}${tlsPort ? ` and ${tlsPort} (TLS)` : ""}`);
  return {
    port,
    tlsPort,
    async stop() {
      stopped = true;
      clearInterval(refresh);
      clearInterval(forwarder);
      const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      await Promise.all([...sessions].map((s) => s.unbind("the server is stopping")));
      await closed;
    },
  };
}
