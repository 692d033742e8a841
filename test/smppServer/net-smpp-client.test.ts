// The SMPP server for client applications against a client nobody here wrote: Net::SMPP (Debian's
// libnet-smpp-perl) as an ESME (test/helpers/smpp-client.pl). A wrong password is refused; with the right one
// it submits three messages and gets a receipt for each whose id is the one its submit_sm_resp gave.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const available = systemPackagePresent({
  neededBy: "the Net::SMPP client test",
  file: "/usr/share/perl5/Net/SMPP.pm",
  debianPackage: "libnet-smpp-perl",
});
const server = useTestServer({ ...fastWorkerConfig });
useTestWorker(server);
const smppServer = useSmppServer(server);

beforeAll(async () => {
  const { accountId } = await server().account("net-smpp");
  await giveSmppCredentials(server, accountId, { systemId: "perl", password: "pw" });
});

async function runClient(password: string, count: number): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(
    "perl",
    [resolve(import.meta.dirname, "../helpers/smpp-client.pl"), String(smppServer().port), "perl", password, String(count)],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, lines: out.trim().split("\n") };
}

describe.runIf(available)("a Net::SMPP client application", () => {
  it(
    "is refused with a wrong password, and with the right one gets a receipt for each message it submits",
    { timeout: 60_000 },
    async () => {
      const refused = await runClient("wrong", 1);
      expect(refused.lines[0]).toBe("BIND 14"); // ESME_RINVPASWD (0x0E)

      const { code, lines } = await runClient("pw", 3);
      expect(code, lines.join("\n")).toBe(0);
      expect(lines[0]).toBe("BIND 0");
      const submitted = lines.filter((l) => l.startsWith("SUBMITTED ")).map((l) => l.split(" "));
      expect(submitted.map(([, status]) => status)).toEqual(["0", "0", "0"]);
      const receipts = lines.filter((l) => l.startsWith("RECEIPT ")).map((l) => l.split(" "));
      expect(receipts.map(([, id]) => id).sort()).toEqual(submitted.map(([, , id]) => id).sort());
      expect(receipts.every(([, , stat]) => stat === "DELIVRD")).toBe(true);
      expect(lines.at(-1)).toBe("DONE");
    },
  );
});
