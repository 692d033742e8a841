// The deployment's provider is recorded in the database, never a process's own default
// (routing/deploymentProvider.ts). Found as a defect: an API process started without PROVIDER beside workers
// on SMPP served the simulator's inbound endpoint (a tenant forged START and HELP, and the HELP reply went out
// through the real SMSC), and production with nothing configured ran on the simulator, sending nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { insertConnector, readConnector } from "../../server/routing/index.js";
import { readRoutingTable } from "../../server/routing/index.js";
import { freePort } from "../../server/db/embedded.js";
import { createDb, migrateLatest, type Db } from "../../server/db/knex.js";
import { createLogger } from "../../server/logger.js";
import { ProviderRefused, resolveDeploymentProvider } from "../../server/routing/index.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { useTestDatabase } from "../helpers/database.js";
import { createFreshDatabase } from "../helpers/freshDatabase.js";
import { spawnProcess, type Spawned } from "../helpers/process.js";
import { startSmsc, type Smsc } from "../helpers/smsc.js";

const database = useTestDatabase();
const lines: { level: number; msg: string }[] = [];
const log = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
const env = (vars: Record<string, string>) => loadConfig(vars);

describe("the deployment's provider, resolved at a process's start", () => {
  it("outside production a first start with nothing configured makes the simulator `default` and its route; later starts follow it", async () => {
    const { db } = database();
    await db("connectors").del();
    await db("routing_table").update({ version: 0, routes: JSON.stringify([]) });
    expect(await resolveDeploymentProvider(db, env({}), log)).toEqual({ provider: "simulator" });
    const recorded = await readConnector(db, "default");
    expect(recorded?.type).toBe("simulator");
    expect(await readRoutingTable(db)).toEqual({
      version: 1,
      routes: [{ name: "default", match: {}, connectors: [{ connectorId: recorded!.id, weight: 1 }], fallback: [] }],
    });
    // Once a connector exists the API manages them: a process with another PROVIDER is told, and nothing changes.
    const smpp = await resolveDeploymentProvider(db, env({ PROVIDER: "smpp", SMPP_URL: "smpp://acme:p%40ss@127.0.0.1:2776" }), log);
    expect(smpp).toEqual({ provider: "simulator" });
    expect(lines.map((l) => l.msg)).toContainEqual(
      expect.stringMatching(/differ from the deployment's `default` connector and are not applied/),
    );
    expect(await readConnector(db, "default")).toEqual(recorded);
    expect((await readRoutingTable(db)).version).toBe(1);
  });

  it("a first start with PROVIDER=smpp makes the smpp `default` from SMPP_URL; the same again says nothing", async () => {
    const { db } = database();
    await db("connectors").del();
    await db("routing_table").update({ version: 0, routes: JSON.stringify([]) });
    const vars = { PROVIDER: "smpp", SMPP_URL: "smpp://acme:p%40ss@127.0.0.1:2776" };
    expect(await resolveDeploymentProvider(db, env(vars), log)).toEqual({ provider: "smpp", smppUrl: "smpp://acme:p%40ss@127.0.0.1:2776" });
    expect(await readConnector(db, "default")).toMatchObject({
      type: "smpp",
      smpp: { host: "127.0.0.1", port: 2776, systemId: "acme", password: "p@ss" },
      enabled: true,
    });
    const warnings = lines.filter((l) => l.level === 40).length;
    await resolveDeploymentProvider(db, env(vars), log);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(warnings);
    // One without follows it.
    expect(await resolveDeploymentProvider(db, env({}), log)).toEqual({ provider: "smpp", smppUrl: "smpp://acme:p%40ss@127.0.0.1:2776" });
  });

  it("production refuses to start with nothing configured, and on the simulator unless ALLOW_SIMULATOR_IN_PRODUCTION=1", async () => {
    const { db } = database();
    await db("connectors").del();
    const production = { NODE_ENV: "production" };
    await expect(resolveDeploymentProvider(db, env(production), log)).rejects.toThrow(/^cannot start: no provider is configured/);
    expect(await readConnector(db, "default")).toBeUndefined();
    await expect(resolveDeploymentProvider(db, env({ ...production, PROVIDER: "simulator" }), log)).rejects.toBeInstanceOf(ProviderRefused);
    // The simulator recorded (a development start) does not carry into production either.
    await expect(resolveDeploymentProvider(db, env(production), log)).rejects.toThrow(/provider is the simulator, which sends nothing/);
    expect(await resolveDeploymentProvider(db, env({ ...production, ALLOW_SIMULATOR_IN_PRODUCTION: "1" }), log)).toEqual({
      provider: "simulator",
    });
    await expect(resolveDeploymentProvider(db, env({ PROVIDER: "smpp" }), log)).rejects.toThrow(/PROVIDER=smpp needs SMPP_URL/);
  });

  it("production with the simulator enabled beside a carrier starts, and warns", async () => {
    const { db } = database();
    await db("connectors").del();
    const simulatorWarnings = () => lines.filter((l) => l.level === 40 && /simulator beside carrier connectors/.test(l.msg)).length;
    await resolveDeploymentProvider(db, env({ PROVIDER: "simulator" }), log);
    const carrier = { type: "smpp" as const, smpp: { host: "127.0.0.1", port: 9, systemId: "c", password: "p" } } as never;
    await insertConnector(db, { name: "carrier", settings: carrier, maxSegmentsPerSecond: null, enabled: true });
    const before = simulatorWarnings();
    await resolveDeploymentProvider(db, env({ NODE_ENV: "production" }), log);
    expect(simulatorWarnings()).toBe(before + 1);
    // The simulator switched off: no warning.
    await db("connectors").where({ type: "simulator" }).update({ enabled: false });
    await resolveDeploymentProvider(db, env({ NODE_ENV: "production" }), log);
    expect(simulatorWarnings()).toBe(before + 1);
  });
});

describe("a split deployment whose API processes set no PROVIDER", { timeout: 90_000 }, () => {
  let fresh: Awaited<ReturnType<typeof createFreshDatabase>>;
  let db: Db;
  let smsc: Smsc;
  const running: Spawned[] = [];
  const start = (vars: Record<string, string>) => {
    const proc = spawnProcess(process.execPath, ["--import", "tsx", "server/main.ts"], {
      DATABASE_URL: fresh.url,
      NODE_ENV: "production",
      LOG_LEVEL: "info",
      PROVIDER: "",
      SMPP_URL: "",
      ALLOW_SIMULATOR_IN_PRODUCTION: "",
      ...vars,
    });
    running.push(proc);
    return proc;
  };
  beforeAll(async () => {
    fresh = await createFreshDatabase();
    db = createDb(fresh.url, 2);
    await migrateLatest(db);
    smsc = await startSmsc();
  });
  afterAll(async () => {
    for (const p of running) p.child.kill("SIGKILL");
    await smsc?.close();
    await db?.destroy();
    await fresh?.drop();
  });

  it("an API process on a fresh production database with nothing configured refuses to start, with one line", async () => {
    const api = start({ ROLE: "api", PORT: String(await freePort()) });
    expect(await api.exited).toBe(1);
    const said = api
      .output()
      .trim()
      .split("\n")
      .filter((l) => l.includes("cannot start"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^cannot start: no provider is configured\. Set PROVIDER=smpp and SMPP_URL/);
    expect(api.output()).not.toMatch(/listening on/);
  });

  it("follows the workers' SMPP: the simulator's inbound endpoint refuses (409) on it", async () => {
    const worker = start({ ROLE: "worker", PROVIDER: "smpp", SMPP_URL: smsc.url });
    await worker.waitFor(/job runner started/, 60_000);
    const port = await freePort();
    const api = start({ ROLE: "api", PORT: String(port), HOST: "127.0.0.1" });
    await api.waitFor(/listening on/, 60_000);
    expect(api.output()).toMatch(/"provider":"smpp","from":"the deployment's record"/);
    const { key } = await createKeyForAccount(db, "tenant");
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/simulator/inbound`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ from: "+14155550111", to: "+14155550100", body: "START" }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe("simulator_unavailable");
  });
});
