// A routing or connector change applies to every message claimed after its 200 (docs/ROUTING.md, "When a change
// applies"), not at the worker's next timed look: the worker here looks at the connectors once a minute, so
// only the look after each claim (ConnectorSet.catchUp) can route these messages the new way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, connectorRefreshMs: 60_000 });
let worker: Worker | undefined;

beforeAll(async () => {
  const s = server();
  worker = await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config });
});
afterAll(async () => {
  await worker?.stop(2_000);
});

describe("a routing change", () => {
  it("routes the next message sent after the 200 by the new table and the changed connector", { timeout: 30_000 }, async () => {
    const { request } = await server().operator();
    const a = await server().account();
    const connectors = (await (await request("GET", "/api/v1/connectors")).json()) as { data: { connectorId: string; name: string }[] };
    const first = connectors.data.find((c) => c.name === "default")!.connectorId;
    const made = await request("POST", "/api/v1/connectors", { name: "second", type: "simulator" });
    expect(made.status).toBe(201);
    const second = ((await made.json()) as { connectorId: string }).connectorId;

    const putRoutes = async (routes: unknown[]) => {
      const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
      expect((await request("PUT", "/api/v1/routes", { version, routes })).status).toBe(200);
    };
    const sendAndSee = async (to: string) => {
      const res = await a.request("POST", "/api/v1/messages", { to, from: "ACME", body: "which way?" });
      expect(res.status).toBe(201);
      const { messageId } = (await res.json()) as { messageId: string };
      const sent = await waitUntil("the message sent", async () => {
        const m = (await (await a.request("GET", `/api/v1/messages/${messageId}`)).json()) as {
          status: string;
          connectorId: string | null;
        };
        return m.status === "sent" || m.status === "delivered" ? m : undefined;
      });
      return sent.connectorId;
    };

    // The table changed: the very next message goes the new way, then back.
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: second }] }]);
    expect(await sendAndSee("+14155550161")).toBe(second);
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: first }] }]);
    expect(await sendAndSee("+14155550162")).toBe(first);

    // A connector changed: disabled, its route's fallback takes the next message; enabled again, it has it back.
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: second }], fallback: [first] }]);
    expect(await sendAndSee("+14155550163")).toBe(second);
    expect((await request("PATCH", `/api/v1/connectors/${second}`, { enabled: false })).status).toBe(200);
    expect(await sendAndSee("+14155550164")).toBe(first);
    expect((await request("PATCH", `/api/v1/connectors/${second}`, { enabled: true })).status).toBe(200);
    expect(await sendAndSee("+14155550165")).toBe(second);
  });
});
