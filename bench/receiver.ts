// A local keep-alive receipt receiver for the benchmarks: counts receipts and records, for each, the time from
// the status change (the receipt's `timestamp`) to its arrival.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BenchReceiver {
  url: string;
  received: number;
  latenciesMs: number[];
  firstChange: number;
  lastArrival: number;
  onReceipt?: () => void;
  close(): void;
}

export async function startReceiver(): Promise<BenchReceiver> {
  const r: BenchReceiver = {
    url: "",
    received: 0,
    latenciesMs: [],
    firstChange: Infinity,
    lastArrival: 0,
    close: () => server.close(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const arrived = Date.now();
      const changedAt = Date.parse(JSON.parse(Buffer.concat(chunks).toString()).timestamp);
      r.received++;
      r.latenciesMs.push(arrived - changedAt);
      r.firstChange = Math.min(r.firstChange, changedAt);
      r.lastArrival = Math.max(r.lastArrival, arrived);
      r.onReceipt?.();
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dlr`;
  return r;
}
