// A connector's host is a host: a name, an IPv4 or an IPv6 address, nothing else (no scheme, port, path or
// space, at most 253 characters), refused with a 400 naming the field before anything is stored.
import { describe, expect, it } from "vitest";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const smpp = (host: string) => ({ host, port: 2775, systemId: "acme", password: "secret" });

describe("connector hosts", () => {
  it("refuses what is not a host name or address (400), and takes names, IPv4 and IPv6", async () => {
    const op = await server().operator();
    const before = Number((await server().db("connectors").count({ n: "*" }))[0]!.n);
    for (const host of [
      "a".repeat(5000),
      "a b",
      "http://smsc.example",
      "smsc.example:2775",
      "smsc.example/x",
      "-smsc.example",
      "a".repeat(64) + ".example",
      "",
    ]) {
      const res = await op.request("POST", "/api/v1/connectors", { name: `bad-${host.length}`, type: "smpp", smpp: smpp(host) });
      expect(res.status, host.slice(0, 40)).toBe(400);
      expect((await problemOf(res)).errors?.[0]?.path, host.slice(0, 40)).toBe("/body/smpp/host");
    }
    expect(Number((await server().db("connectors").count({ n: "*" }))[0]!.n)).toBe(before);
    for (const [i, host] of ["smsc.carrier-a.example", "127.0.0.1", "::1", "2001:db8::17", "localhost"].entries()) {
      const res = await op.request("POST", "/api/v1/connectors", { name: `good-${i}`, type: "smpp", enabled: false, smpp: smpp(host) });
      expect(res.status, host).toBe(201);
    }
  });
});
