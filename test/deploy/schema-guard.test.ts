// A database migrated past what this build knows (a newer release ran its migrate step, or an old build was
// rolled back onto it): the server and the migrate step refuse to start with a clear message, and a running
// server's /readyz says so.
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { run, spawnProcess } from "../helpers/process.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const FROM_A_NEWER_RELEASE = "999_from_a_newer_release";
afterAll(() => server().db("knex_migrations").where({ name: FROM_A_NEWER_RELEASE }).del());

describe("a database migrated past this build", { timeout: 60_000 }, () => {
  it("/readyz turns 503 and names the migrations this server does not know", async () => {
    expect((await fetch(`${server().baseUrl}/readyz`)).status).toBe(200);
    await server().db("knex_migrations").insert({ name: FROM_A_NEWER_RELEASE, batch: 99, migration_time: new Date() });
    const res = await fetch(`${server().baseUrl}/readyz`);
    expect(res.status).toBe(503);
    const problem = (await res.json()) as { detail: string };
    expect(problem.detail).toContain("newer than this server");
    expect(problem.detail).toContain(FROM_A_NEWER_RELEASE);
  });

  it("the server refuses to start, with one clear line, and the migrate step refuses too", async () => {
    const env = { DATABASE_URL: server().url, ROLE: "all", PORT: String(await freePort()), LOG_LEVEL: "info", NODE_ENV: "production" };
    const proc = spawnProcess(process.execPath, ["--import", "tsx", "server/main.ts"], env);
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/cannot start: The database schema is newer than this build.*999_from_a_newer_release/);
    expect(proc.output()).not.toMatch(/listening on/);

    const migrate = await run("npm", ["run", "--silent", "migrate"], { DATABASE_URL: server().url });
    expect(migrate.code).not.toBe(0);
    expect(migrate.stderr).toContain("The database schema is newer than this build");
    // Nothing was applied or removed: the newer release's record is still there, alone in its batch.
    expect(await server().db("knex_migrations").where({ batch: 99 }).pluck("name")).toEqual([FROM_A_NEWER_RELEASE]);
  });
});
