// The receipt client against real receivers on 127.0.0.1: what one attempt reports for each kind of answer,
// and that an attempt past its deadline ends, even while it waits for a connection of a full pool, and is
// never sent after it ended.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ReceiptClient } from "../../server/webhooks/client.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A receiver that hands every request, its body read, to `handle`; closed with every connection after the test. */
async function receiver(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/dlr?x=1`;
}

function client(opts: { timeoutMs?: number; connections?: number; allowPrivate?: boolean } = {}): ReceiptClient {
  const c = new ReceiptClient({
    timeoutMs: opts.timeoutMs ?? 5000,
    allowPrivate: opts.allowPrivate ?? true,
    connections: opts.connections,
  });
  cleanups.push(() => c.close().catch(() => undefined));
  return c;
}

const post = (c: ReceiptClient, url: string, body = "{}") => c.post(url, body, { "content-type": "application/json" });

describe("the receipt client", () => {
  it("reports a 2xx as delivered, anything else as the receiver's status, and sends the body, headers and path", async () => {
    const seen: { path: string; type: string | undefined; body: string }[] = [];
    let status = 204;
    const url = await receiver((req, res, body) => {
      seen.push({ path: req.url!, type: req.headers["content-type"], body });
      res.writeHead(status).end();
    });
    const c = client();
    expect(await post(c, url, '{"a":1}')).toMatchObject({ status: 204, error: null, retryAfterMs: undefined });
    status = 500;
    expect(await post(c, url)).toMatchObject({ status: 500, error: "receiver answered 500" });
    expect(seen[0]).toEqual({ path: "/dlr?x=1", type: "application/json", body: '{"a":1}' });
  });

  it("reads Retry-After of a 429 or 503, in seconds or as a date, capped at an hour", async () => {
    const answers = [
      [429, { "retry-after": "7" }],
      [503, { "retry-after": new Date(Date.now() + 120_000).toUTCString() }],
      [429, { "retry-after": "99999999" }],
      [500, { "retry-after": "7" }],
    ] as const;
    let i = 0;
    const url = await receiver((_req, res) => {
      const [status, headers] = answers[i++]!;
      res.writeHead(status, headers).end("slow down");
    });
    const c = client();
    expect((await post(c, url)).retryAfterMs).toBe(7000);
    const dated = (await post(c, url)).retryAfterMs!;
    expect(dated).toBeGreaterThan(100_000);
    expect(dated).toBeLessThanOrEqual(120_000);
    expect((await post(c, url)).retryAfterMs).toBe(3_600_000);
    expect((await post(c, url)).retryAfterMs).toBeUndefined(); // only 429 and 503 ask to wait
  });

  it("keeps the status of an answer whose body is larger than it reads, or is cut off", async () => {
    const url = await receiver((req, res) => {
      if (req.url!.startsWith("/big")) {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(200 * 1024));
      } else {
        res.writeHead(202, { "content-length": "1000" });
        res.write("partial");
        setImmediate(() => res.destroy());
      }
    });
    const c = client();
    expect(await post(c, url.replace("/dlr", "/big"))).toMatchObject({ status: 200, error: null });
    expect(await post(c, url.replace("/dlr", "/cut"))).toMatchObject({ status: 202, error: null });
  });

  it("ends an attempt with no answer at its deadline, also one still waiting for a connection, which is then never sent", async () => {
    const seen: string[] = [];
    const hanging: ServerResponse[] = [];
    const url = await receiver((_req, res, body) => {
      seen.push(body);
      if (body === "first") hanging.push(res);
      else res.writeHead(200).end();
    });
    // A deadline a busy machine cannot miss by chance: "first" reaches the receiver well before it.
    const c = client({ timeoutMs: 1500, connections: 1 });
    // One connection: "first" holds it unanswered, "second" waits for it.
    const [first, second] = await Promise.all([post(c, url, "first"), post(c, url, "second")]);
    expect(first).toMatchObject({ status: null, error: "no answer within 1500 ms" });
    expect(second).toMatchObject({ status: null, error: "no answer within 1500 ms" });
    // The pool is not wedged: the next attempt gets a connection and an answer, and "second" never went out
    // before it (the pool is first in, first out).
    expect(await post(c, url, "third")).toMatchObject({ status: 200, error: null });
    expect(seen).toEqual(["first", "third"]);
  });

  it("reports a refused connection by its code, and refuses plain http or a private address unless allowed", async () => {
    const url = await receiver((_req, res) => res.writeHead(200).end());
    const closedPort = url.replace(/:\d+\//, ":1/");
    expect(await post(client(), closedPort)).toMatchObject({ status: null, error: "ECONNREFUSED" });
    const strict = client({ allowPrivate: false });
    expect(await post(strict, url)).toMatchObject({ status: null, error: "webhook URL is not https" });
    expect(await post(strict, "https://127.0.0.1/dlr")).toMatchObject({ status: null, error: "address 127.0.0.1 is not public" });
    expect(await post(strict, "not a url")).toMatchObject({ status: null, error: "ERR_INVALID_URL" });
  });
});
