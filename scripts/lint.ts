// npm run lint: ESLint (with the type checker), Prettier's check and dependency-cruiser, run side by side: one
// after the other they took 45 s on the 2-core machine, ESLint alone 31 s. Fails when any of them fails; each
// one's output is printed as it comes.
import { spawn } from "node:child_process";

const checks: [string, string[]][] = [
  ["eslint", ["."]],
  ["prettier", ["--check", "--log-level", "warn", "."]],
  ["depcruise", ["--config", ".dependency-cruiser.cjs", "server", "common", "dashboard/src", "client", "scripts", "test", "bench"]],
];

const codes = await Promise.all(
  checks.map(
    ([command, args]) =>
      new Promise<number>((resolve) => {
        const child = spawn(command, args, { stdio: "inherit", shell: process.platform === "win32" });
        child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
        child.on("error", (error) => {
          console.error(`${command}: ${error.message}`);
          resolve(1);
        });
      }),
  ),
);
const failed = checks.filter((_, i) => codes[i] !== 0).map(([command]) => command);
if (failed.length > 0) {
  console.error(`lint failed: ${failed.join(", ")}`);
  process.exit(1);
}
