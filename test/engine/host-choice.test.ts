// A pool on a URL of several hosts (db/hosts.ts, HostChoice) follows the primary even when it held no connection
// as the primary died: its connections had been closed by the pool itself (idle), so no connection's error told it
// the host was gone. Its next connection must look for the host again, not dial the dead one (the failover chaos
// test's own pool did, and read ECONNREFUSED from the dead node after the promotion).
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../../server/db/knex.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();
const sockets = new Set<Socket>();
/** A TCP proxy to the test's PostgreSQL: a host of the URL that can die. */
const proxy = createServer((client) => {
  const upstream = connect(Number(new URL(database().url).port), "127.0.0.1");
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  }
  client.pipe(upstream).pipe(client);
});
afterAll(() => {
  for (const s of sockets) s.destroy();
  proxy.close();
});

describe("a pool on several hosts", () => {
  it("looks for the host again when it holds no connection, so a host that died meanwhile is passed over", async () => {
    const direct = new URL(database().url);
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxyPort = (proxy.address() as AddressInfo).port;
    const url = `postgres://${direct.username}:${direct.password}@127.0.0.1:${proxyPort},127.0.0.1:${direct.port}${direct.pathname}?target_session_attrs=read-write`;
    const chosen: number[] = [];
    const db = createDb(url, 2, (host) => chosen.push(host.port));
    try {
      expect((await db.raw<{ rows: { one: number }[] }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
      expect(chosen).toEqual([proxyPort]);

      // The pool closes its connections itself (as it closes idle ones), then the chosen host dies.
      await db.destroy();
      db.initialize();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));

      expect((await db.raw<{ rows: { one: number }[] }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
      expect(chosen).toEqual([proxyPort, Number(direct.port)]);
    } finally {
      await db.destroy();
    }
  });
});
