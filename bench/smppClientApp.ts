// bench:smpp-server's client application: our SMPP server for client applications in its own process
// (ROLE=smpp), and a client (the `smpp` package) that binds as a transceiver, submits at a window with
// registered_delivery 1 and answers every deliver_sm, counting the receipts once per message.
import { spawn, type ChildProcess } from "node:child_process";
import smpp, { type PDU, type Session } from "smpp";
import { freePort } from "../server/db/embedded.js";
import { root } from "./lib.js";

export interface SmppServerProcess {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/** `server/main.ts` with ROLE=smpp on a free port of 127.0.0.1; resolves once it accepts connections. */
export async function startSmppServerProcess(databaseUrl: string, env: Record<string, string>): Promise<SmppServerProcess> {
  const port = await freePort();
  const child = spawn("node", ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      ROLE: "smpp",
      DATABASE_URL: databaseUrl,
      SMPP_SERVER_PORT: String(port),
      SMPP_SERVER_HOST: "127.0.0.1",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`the SMPP server process exited with ${code}`)));
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (!out.includes("SMPP server listening")) return;
      child.stdout.removeAllListeners("data");
      child.stdout.resume();
      child.removeAllListeners("exit");
      resolve();
    });
  });
  return {
    child,
    port,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

export interface ClientApp {
  /** Submits n messages, `window` unanswered at a time; resolves with the submits answered per second. */
  submit(n: number, window: number, to: (i: number) => string): Promise<number>;
  /** Resolves once `n` distinct messages' receipts are in; rejects after `timeoutMs`. */
  receiptsIn(n: number, timeoutMs: number): Promise<{ lastArrival: number; duplicates: number }>;
  reset(): void;
  close(): void;
}

export async function bindClientApp(port: number, systemId: string, password: string): Promise<ClientApp> {
  const session: Session = smpp.connect({ url: `smpp://127.0.0.1:${port}` });
  session.socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) =>
    session.bind_transceiver({ system_id: systemId, password }, (pdu: PDU) =>
      pdu.command_status === 0 ? resolve() : reject(new Error(`bind refused: ${pdu.command_status}`)),
    ),
  );
  // The server checks an idle client with enquire_link and closes a session that does not answer.
  session.on("enquire_link", (pdu: PDU) => session.send(pdu.response()));
  let closed: Error | undefined;
  const failures = new Set<(error: Error) => void>();
  session.on("close", () => {
    closed = new Error("the SMPP server closed the client's session");
    for (const fail of failures) fail(closed);
  });
  const seen = new Set<string>();
  let duplicates = 0;
  let lastArrival = 0;
  let onReceipt: (() => void) | undefined;
  session.on("deliver_sm", (pdu: PDU) => {
    session.send(pdu.response());
    const id = String(pdu.receipted_message_id ?? "");
    if (seen.has(id)) duplicates++;
    else seen.add(id);
    lastArrival = Date.now();
    onReceipt?.();
  });
  return {
    submit: (n, window, to) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(closed);
        failures.add(reject);
        const t0 = performance.now();
        let written = 0;
        let answered = 0;
        const pump = () => {
          while (written - answered < window && written < n) {
            const i = written++;
            session.submit_sm(
              { source_addr: "ACME", destination_addr: to(i), short_message: `Your code is ${i}`, registered_delivery: 1 },
              (resp: PDU) => {
                if (resp.command_status !== 0) return reject(new Error(`submit ${i} answered command_status ${resp.command_status}`));
                if (++answered === n) resolve(Math.round(n / ((performance.now() - t0) / 1000)));
                else pump();
              },
            );
          }
        };
        pump();
      }),
    receiptsIn: (n, timeoutMs) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(closed);
        failures.add(reject);
        const timer = setTimeout(() => reject(new Error(`SMPP client: ${seen.size}/${n} receipts after ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          if (seen.size < n) return;
          clearTimeout(timer);
          onReceipt = undefined;
          resolve({ lastArrival, duplicates });
        };
        onReceipt = check;
        check();
      }),
    reset() {
      seen.clear();
      duplicates = 0;
    },
    close: () => {
      failures.clear();
      session.close();
    },
  };
}
