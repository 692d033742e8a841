// The recipe of docs/OPERATIONS.md "High availability" ("Try it on one machine"), run as written and in the
// order written: its shell block becomes a script (the directory /var/tmp/sms-ha made a fresh one, the package
// install left to .ci/run), with a check after each step that changes the primary that the service, started by
// the recipe's own `npm start`, answers /readyz 200 again without a restart.
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { formationAvailable } from "../helpers/haFormation.js";

const available = formationAvailable("the high-availability recipe test");
const dir = mkdtempSync(join(tmpdir(), "sms-ha-recipe-"));
chmodSync(dir, 0o755);
afterAll(async () => {
  await promisify(execFile)("bash", ["ops/ha/formation.sh", "stop", dir]).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** The shell block under "Try it on one machine" in the "High availability" section. */
function recipe(): string[] {
  const doc = readFileSync("docs/OPERATIONS.md", "utf8");
  const section = doc.slice(doc.indexOf("## High availability"));
  const block = /\*\*Try it on one machine\*\*[^]*?```sh\n([^]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/OPERATIONS.md: no sh block under "Try it on one machine"');
  return block.trimEnd().split("\n");
}

describe.runIf(available)("the high-availability recipe of docs/OPERATIONS.md", { timeout: 300_000 }, () => {
  it("runs as written: the service answers again after the crash, the rejoin and the switchover", async () => {
    const lines = recipe();
    expect(lines[0]).toMatch(/^apt-get install /);
    const checked = /formation\.sh (kill-primary|rejoin|switchover) |npm start &/;
    const script = [
      "set -euo pipefail",
      "set -m", // job control, so that the recipe's `kill %1` stops the service it started
      // /readyz 200 within 60 s, or fail (the step's name on stderr).
      `ready() { for _ in $(seq 1 600); do node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" && echo "READY after: $1" && return 0; sleep 0.1; done; echo "not ready after: $1" >&2; return 1; }`,
      ...lines.slice(1).flatMap((line) => {
        const step = line.replaceAll("/var/tmp/sms-ha", dir);
        return checked.test(line) ? [step, `ready ${JSON.stringify(line.replace(/\s+#.*/, ""))}`] : [step];
      }),
    ].join("\n");
    const port = await freePort();
    const result = await promisify(execFile)("bash", ["-c", script], {
      env: { ...process.env, HA_FAST: "1", PORT: String(port), LOG_LEVEL: "warn" },
      maxBuffer: 16 << 20,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      const log = (name: string) => {
        try {
          return readFileSync(join(dir, `${name}.log`), "utf8").slice(-3000);
        } catch {
          return "";
        }
      };
      throw new Error(
        `the recipe failed:\n${error.stderr ?? ""}\n${(error.stdout ?? "").slice(-4000)}\nmonitor: ${log("monitor")}\nnode1: ${log("node1")}`,
      );
    });
    // Four checks passed, in the recipe's order; the formation's URL was printed by `start`.
    expect(result.stdout.match(/^READY after: .*$/gm)?.map((l) => l.replace(/^READY after: /, "").split(" ")[0])).toEqual([
      "npm",
      "ops/ha/formation.sh",
      "ops/ha/formation.sh",
      "ops/ha/formation.sh",
    ]);
    expect(result.stdout).toMatch(/postgres:\/\/sms@127\.0\.0\.1:15431,127\.0\.0\.1:15432\/app\?target_session_attrs=read-write/);
  });
});
