// Over SMPP a window takes its share of the link's rate (SMPP_MAX_PER_SECOND) before it is claimed, so that a
// claimed window is written at once. The sending policy decides before that: a message it holds (quiet hours
// here) takes no share, so a large marketing backlog entering its quiet hours does not stall the link for the
// messages that may go. Without it, 20 held messages at 2 submits a second would hold the transactional message
// behind them for about 10 s; the bound below is half of that, far above the sub-second it takes.
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { notifyWorkers } from "../../server/db/jobs/index.js";
import { useTestServer } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

type Outbound = components["schemas"]["OutboundMessage"];
const MAX_PER_SECOND = 2;
const HELD = 20;

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", smppMaxInFlight: 10, smppMaxPerSecond: MAX_PER_SECOND });
useSmppWorker(server);

describe("the sending policy over a paced link", () => {
  it("messages held by quiet hours take no share of the link's rate: a transactional message behind 20 of them goes at once", async () => {
    const a = await server().account();
    // A window around now on Los Angeles' wall clock, the zone of +1 415 numbers.
    const la = DateTime.now().setZone("America/Los_Angeles");
    const quietHours = { start: la.minus({ hours: 1 }).toFormat("HH:mm"), end: la.plus({ hours: 1 }).toFormat("HH:mm") };
    expect((await a.client.PATCH("/api/v1/account/settings", { body: { quietHours } })).response.status).toBe(200);

    // Scheduled an hour ahead, the transactional one last, then all made due in one statement: the marketing
    // messages come first in the claim (earlier due times).
    const base = Date.now() + 3_600_000;
    const schedule = async (to: string, i: number, category: "marketing" | "transactional") => {
      const scheduledAt = new Date(base + i * 1000).toISOString();
      const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
        body: { to, body: "Sale", from: "ACME", scheduledAt, category },
      });
      return data!.messageId;
    };
    const marketing = await Promise.all(
      Array.from({ length: HELD }, (_, i) => schedule(`+1415558${String(i).padStart(4, "0")}`, i, "marketing")),
    );
    const code = await schedule("+14155589999", HELD, "transactional");
    const { db } = server();
    await db.raw(
      `UPDATE jobs SET run_at = run_at - interval '2 hours' WHERE id IN (SELECT job_id FROM messages WHERE id = ANY(?::uuid[]))`,
      [[...marketing, code]],
    );
    const due = Date.now();
    await notifyWorkers(db);

    const get = async (id: string) =>
      (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: id } } })).data! as Outbound;
    const sent = await waitUntil("the transactional message sent", async () => {
      const m = await get(code);
      return m.status === "sent" && m;
    });
    expect(Date.parse(sent.sentAt!) - due).toBeLessThan((HELD / MAX_PER_SECOND / 2) * 1000);
    for (const id of marketing) expect(await get(id)).toMatchObject({ status: "scheduled", deferredUntil: expect.any(String) });
  });
});
