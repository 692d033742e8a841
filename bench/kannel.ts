// Kannel (Debian's `kannel` package: bearerbox + smsbox) as bench:smpp's peer: one SMPP transceiver session to
// the same SMSC, its window `max-pending-submits`, its message store on disk (store-type file, as packaged
// deployments run it), delivery receipts kept in its internal DLR store and posted to `dlr-url` by smsbox.
// Messages go in through smsbox's `sendsms` HTTP interface, one request each.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../server/db/embedded.js";

export const BEARERBOX = "/usr/sbin/bearerbox";
export const SMSBOX = "/usr/sbin/smsbox";
export const hasKannel = () => existsSync(BEARERBOX) && existsSync(SMSBOX);

export interface Kannel {
  /** `sendsms` for one message to `to`, its receipts posted to `dlrUrl` (%d: the DLR type). */
  sendsmsUrl(to: string, text: string, dlrUrl: string): string;
  pids(): number[];
  stop(): Promise<void>;
}

export async function startKannel(opts: { smscPort: number; window: number }): Promise<Kannel> {
  const dir = mkdtempSync(join(tmpdir(), "bench-kannel-"));
  const [admin, box, sendsms] = [await freePort(), await freePort(), await freePort()];
  const conf = join(dir, "kannel.conf");
  writeFileSync(
    conf,
    `group = core
admin-port = ${admin}
admin-password = bench
smsbox-port = ${box}
box-allow-ip = "127.0.0.1"
log-file = "${dir}/bearerbox.log"
log-level = 3
store-type = file
store-location = "${dir}/kannel.store"
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = bench
host = 127.0.0.1
port = ${opts.smscPort}
transceiver-mode = true
smsc-username = kannel
smsc-password = secret
system-type = ""
max-pending-submits = ${opts.window}
msg-id-type = 0x00
log-level = 3

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${box}
sendsms-port = ${sendsms}
log-file = "${dir}/smsbox.log"
log-level = 3

group = sendsms-user
username = bench
password = bench
max-messages = 1

group = sms-service
keyword = default
text = "ok"
`,
  );
  const children: ChildProcess[] = [];
  const start = (bin: string) => {
    const child = spawn(bin, ["-v", "3", conf], { cwd: dir, stdio: ["ignore", "ignore", "ignore"] });
    children.push(child);
    return child;
  };
  start(BEARERBOX);
  await until(
    async () => (await text(`http://127.0.0.1:${admin}/status.txt?password=bench`)).includes("online"),
    "bearerbox bound to the SMSC",
  );
  start(SMSBOX);
  await until(async () => (await text(`http://127.0.0.1:${sendsms}/`)) !== "", "smsbox listening");
  return {
    sendsmsUrl: (to, body, dlrUrl) =>
      `http://127.0.0.1:${sendsms}/cgi-bin/sendsms?username=bench&password=bench&from=ACME&to=${encodeURIComponent(to)}` +
      `&text=${encodeURIComponent(body)}&dlr-mask=9&dlr-url=${encodeURIComponent(dlrUrl)}`,
    pids: () => children.map((c) => c.pid!),
    async stop() {
      for (const child of children.reverse()) {
        if (child.exitCode !== null) continue;
        const exited = new Promise((done) => child.once("exit", done));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function text(url: string): Promise<string> {
  return fetch(url).then(
    (r) => r.text().then((t) => t || " "),
    () => "",
  );
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Kannel: timed out waiting for ${what}`);
}
