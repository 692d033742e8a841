// A real webhook receiver on 127.0.0.1: records every request (raw body bytes and headers) and answers what
// the test tells it to.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitUntil } from "./wait.js";

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides the answer to each request; default 200. */
  respond: (req: Received, index: number) => Reply;
  waitFor: (what: string, predicate: (all: Received[]) => boolean, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
}

export async function startReceiver(path = "/dlr"): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    received: [],
    respond: () => ({ status: 200 }),
    waitFor: (what, predicate, timeoutMs = 20_000) =>
      waitUntil(what, async () => predicate(receiver.received) && receiver.received, timeoutMs, 10),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        /* recorded as is */
      }
      const entry: Received = { at: Date.now(), path: req.url ?? "", headers: req.headers, body, json };
      const index = receiver.received.length;
      receiver.received.push(entry);
      const reply = receiver.respond(entry, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers).end("ok");
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
