import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the output once `pattern` appears in stdout or stderr. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

export function spawnProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return {
    child,
    output: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => setTimeout(check, 0));
        check();
      }),
  };
}

/** Runs a command to completion. */
export async function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], cwd: opts.cwd });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const [code] = await once(child, "exit");
  return { code: code as number | null, stdout, stderr };
}

/** A worker process (`ROLE=worker`, `server/main.ts` through tsx) on `databaseUrl`; `ready` once its job runner runs. */
export function spawnWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): { proc: Spawned; ready: Promise<RegExpMatchArray> } {
  const proc = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
    ROLE: "worker",
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "info",
    SIMULATOR_DELIVERY_DELAY_MS: "20",
    WORKER_CONCURRENCY: "20",
    ...env,
  });
  return { proc, ready: proc.waitFor(/job runner started/, 30_000) };
}
