import { describe, expect, it } from "vitest";
import { isPublicAddress, webhookUrlProblem } from "../../server/webhooks/urlPolicy.js";

describe("webhook URL policy", () => {
  it.each([
    ["8.8.8.8", true],
    ["93.184.215.14", true],
    ["2606:4700::1111", true],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.20.0.1", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["::1", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["::ffff:10.0.0.1", false],
    ["::ffff:8.8.8.8", true],
    ["not-an-ip", false],
  ])("%s is public: %s", (address, expected) => expect(isPublicAddress(address)).toBe(expected));

  it.each([
    ["::127.0.0.1"],
    ["::7f00:1"],
    ["::8.8.8.8"], // IPv4-compatible
    ["64:ff9b::127.0.0.1"],
    ["64:ff9b::a9fe:a9fe"],
    ["64:ff9b::8.8.8.8"],
    ["64:ff9b:1::a00:1"],
    ["64:ff9b:1:ffff::1"], // NAT64
    ["2002:7f00:1::1"],
    ["2002:a9fe:a9fe::1"],
    ["2002:808:808::1"], // 6to4
    ["2001::1"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2"], // Teredo
    ["fec0::1"],
    ["feff::1"], // site-local
    ["::ffff:0:127.0.0.1"],
    ["::ffff:0:7f00:1"],
    ["::ffff:0:8.8.8.8"], // IPv4-translated
    ["::ffff:7f00:1"],
    ["0:0:0:0:0:FFFF:A9FE:A9FE"], // IPv4-mapped, hex and upper case, to private IPv4
    ["192.88.99.1"],
    ["192.88.99.255"], // 6to4 relay anycast
  ])("transition address %s is not public", (address) => expect(isPublicAddress(address)).toBe(false));

  it.each([["2001:4860:4860::8888"], ["2a00:1450:4001:81c::200e"], ["::ffff:808:808"], ["192.88.100.1"], ["192.88.98.255"]])(
    "%s next to those ranges is public",
    (address) => expect(isPublicAddress(address)).toBe(true),
  );

  it("says a name does not resolve, and gives one answer for every internal address", async () => {
    const internal = await webhookUrlProblem("https://localhost/x", false, async () => ["127.0.0.1"]);
    const elsewhere = await webhookUrlProblem("https://intranet.example/x", false, async () => ["10.1.2.3", "fd00::1"]);
    const empty = await webhookUrlProblem("https://empty.example/x", false, async () => []);
    expect(internal).toBe("must resolve only to public addresses");
    expect(elsewhere).toBe(internal);
    expect(empty).toBe(internal);
    const missing = await webhookUrlProblem("https://no-such-host.invalid/x", false, async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    });
    expect(missing).toBe("names a host that does not resolve (no-such-host.invalid has no address here)");
    const silent = await webhookUrlProblem("https://hooks.example.com/x", false, async () => {
      throw Object.assign(new Error("getaddrinfo EAI_AGAIN"), { code: "EAI_AGAIN" });
    });
    expect(silent).toMatch(/could not be resolved now .*try again/);
    // The system's resolver: .invalid never resolves (RFC 6761), with DNS or without.
    expect(await webhookUrlProblem("https://no-such-host.invalid/x", false)).toMatch(/does not resolve|could not be resolved now/);
  });

  it("resolves host names and rejects any private answer", async () => {
    const resolver = (answers: string[]) => async () => answers;
    expect(await webhookUrlProblem("https://hooks.example.com/x", false, resolver(["93.184.215.14"]))).toBeUndefined();
    expect(await webhookUrlProblem("https://hooks.example.com/x", false, resolver(["93.184.215.14", "10.0.0.1"]))).toMatch(/public/);
    expect(await webhookUrlProblem("https://user:pw@hooks.example.com/x", false, resolver(["93.184.215.14"]))).toMatch(/credentials/);
  });

  it("allows http and private addresses only with WEBHOOK_ALLOW_PRIVATE", async () => {
    expect(await webhookUrlProblem("http://127.0.0.1:8080/x", true)).toBeUndefined();
    expect(await webhookUrlProblem("ftp://127.0.0.1/x", true)).toMatch(/http/);
    expect(await webhookUrlProblem("http://127.0.0.1:8080/x", false)).toMatch(/https/);
  });
});
