// SEND_OUTCOME_UNRESOLVED=resend (docs/RELIABILITY.md): for a link that receipts every message it accepts, an
// unknown outcome that no receipt resolved in SEND_OUTCOME_RESOLVE_MS was never received (the worker died
// between the claim and the write), so it is sent again: once. A message the carrier did get is resolved by its
// receipt as always and never sent twice; one lost twice fails as unknown.
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { SimulatorProvider } from "../../server/providers/simulator.js";
import { LosingProvider } from "../helpers/losingProvider.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const RESOLVE_MS = 4000;

const server = useTestServer({
  ...fastWorkerConfig,
  sendOutcomeResolveMs: RESOLVE_MS,
  sendOutcomeUnresolved: "resend",
  simulatorDeliveryDelayMs: 50,
});
let provider: LosingProvider;
useTestWorker(server, {
  get provider() {
    provider ??= new LosingProvider(new SimulatorProvider(server().db, 50), 4);
    return provider;
  },
});

async function schedule(a: TestAccount, to: string) {
  const { data, error } = await a.client.POST("/api/v1/messages", {
    body: { to, body: "your code is 123456", from: "ACME" },
  });
  if (!data) throw new Error(`schedule failed: ${JSON.stringify(error)}`);
  return data.messageId;
}
const inStatus = (a: TestAccount, id: string, status: string, timeoutMs: number) =>
  waitUntil(
    `message ${id} ${status}`,
    async () => {
      const m = (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: id } } }))
        .data as components["schemas"]["OutboundMessage"];
      return m.status === status && m;
    },
    timeoutMs,
  );
const submissions = async (id: string) =>
  Number((await server().db("simulator_submissions").where({ message_id: id }).count({ n: "*" }))[0]!.n);

describe("unknown outcomes with SEND_OUTCOME_UNRESOLVED=resend", () => {
  it("a message the carrier never got is sent again after the resolution time, and delivered once", async () => {
    const a = await server().account();
    const to = "+14155583001";
    provider.dropping.add(to);
    const id = await schedule(a, to);
    await waitUntil("its outcome declared unknown", async () => {
      const row = await server().db("messages").where({ id }).first("outcome_unknown_at");
      return row.outcome_unknown_at !== null;
    });
    expect(await submissions(id)).toBe(0);
    provider.dropping.delete(to); // the next attempt reaches the carrier
    const delivered = await inStatus(a, id, "delivered", RESOLVE_MS * 4);
    expect(await submissions(id)).toBe(1);
    expect(delivered.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
    const row = await server().db("messages").where({ id }).first("unknown_resent_at", "outcome_unknown_at");
    expect(row.unknown_resent_at).not.toBeNull();
    expect(row.outcome_unknown_at).toBeNull();
  });

  it("a message the carrier got is resolved by its receipt and never sent again", async () => {
    const a = await server().account();
    const to = "+14155583002";
    provider.losing.add(to);
    const id = await schedule(a, to);
    await inStatus(a, id, "delivered", RESOLVE_MS * 2);
    expect(await submissions(id)).toBe(1);
    expect((await server().db("messages").where({ id }).first("unknown_resent_at")).unknown_resent_at).toBeNull();
  });

  it("sent again once only: lost twice, it fails as unknown", async () => {
    const a = await server().account();
    const to = "+14155583004";
    provider.dropping.add(to);
    const id = await schedule(a, to);
    const failed = await inStatus(a, id, "failed", RESOLVE_MS * 6);
    expect(failed.error?.code).toBe("send_outcome_unknown");
    expect(await submissions(id)).toBe(0);
    expect((await server().db("messages").where({ id }).first("unknown_resent_at")).unknown_resent_at).not.toBeNull();
  });
});
