// A slowloris: 200 connections that send their headers a byte at a time. Other requests are served
// meanwhile, and the server drops the slow ones once HTTP_HEADERS_TIMEOUT_MS has passed.
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";

const server = useTestServer({ httpHeadersTimeoutMs: 2000, httpRequestTimeoutMs: 3000 });

describe("slow clients", { timeout: 60_000 }, () => {
  it("200 slowloris connections neither stop other requests nor hold their sockets", async () => {
    const { port } = new URL(server().baseUrl);
    const closed = new Set<Socket>();
    const sockets = await Promise.all(
      Array.from(
        { length: 200 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(Number(port), "127.0.0.1", () => {
              s.write("GET /api/v1/webhooks HTTP/1.1\r\nHost: x\r\n");
              resolve(s);
            });
            s.on("close", () => closed.add(s));
            s.on("error", () => undefined);
          }),
      ),
    );
    const drip = setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write("X");
    }, 200);
    try {
      const a = await server().account();
      const answers = await Promise.all(Array.from({ length: 20 }, () => a.request("GET", "/api/v1/webhooks").then((r) => r.status)));
      expect(answers).toEqual(Array(20).fill(200));
      // The server hangs up on every one of them once the headers timeout has passed.
      await waitUntil("slow sockets closed by the server", async () => closed.size === sockets.length, 20_000, 100);
    } finally {
      clearInterval(drip);
      for (const s of sockets) s.destroy();
    }
  });
});
