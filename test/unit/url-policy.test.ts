import { describe, expect, it } from "vitest";
import { isPublicAddress, webhookUrlProblem } from "../../server/webhooks/urlPolicy.js";

describe("webhook URL policy", () => {
  it.each([
    ["8.8.8.8", true], ["93.184.215.14", true], ["2606:4700::1111", true],
    ["127.0.0.1", false], ["10.1.2.3", false], ["172.20.0.1", false], ["192.168.1.1", false], ["169.254.169.254", false],
    ["100.64.0.1", false], ["0.0.0.0", false], ["::1", false], ["fd00::1", false], ["fe80::1", false], ["::ffff:10.0.0.1", false],
    ["::ffff:8.8.8.8", true], ["not-an-ip", false],
  ])("%s is public: %s", (address, expected) => expect(isPublicAddress(address)).toBe(expected));

  it("resolves host names and rejects any private answer", async () => {
    const resolver = (answers: string[]) => async () => answers;
    expect(await webhookUrlProblem("https://hooks.example.com/x", false, resolver(["93.184.215.14"]))).toBeUndefined();
    expect(await webhookUrlProblem("https://hooks.example.com/x", false, resolver(["93.184.215.14", "10.0.0.1"]))).toMatch(/public/);
    expect(await webhookUrlProblem("https://hooks.example.com/x", false, async () => { throw new Error("ENOTFOUND"); })).toMatch(/resolve/);
    expect(await webhookUrlProblem("https://user:pw@hooks.example.com/x", false, resolver(["93.184.215.14"]))).toMatch(/credentials/);
  });

  it("allows http and private addresses only with WEBHOOK_ALLOW_PRIVATE", async () => {
    expect(await webhookUrlProblem("http://127.0.0.1:8080/x", true)).toBeUndefined();
    expect(await webhookUrlProblem("ftp://127.0.0.1/x", true)).toMatch(/http/);
    expect(await webhookUrlProblem("http://127.0.0.1:8080/x", false)).toMatch(/https/);
  });
});
