// A send claim refused by a hold that is gone by the time the job is judged (a campaign resumed, an account
// reinstated between the claim and the reads that follow it) leaves the message to be judged again at once,
// never ends its job with the message still scheduled. The race is made certain with a trigger in this test's
// own database that refuses a message's claim a set number of times, as such a hold would, and then lets it go.
import { describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig });
useTestWorker(server);

describe("a claim refused by a hold since lifted", () => {
  it("is judged again at once: the message is sent, its job not ended while it waits", async () => {
    const db = server().db;
    await db.raw(`
      CREATE TABLE IF NOT EXISTS test_refused_claims (message_id uuid PRIMARY KEY, refusals int NOT NULL);
      CREATE OR REPLACE FUNCTION test_refuse_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE test_refused_claims SET refusals = refusals - 1 WHERE message_id = OLD.id AND refusals > 0;
        IF FOUND THEN RETURN NULL; END IF;
        RETURN NEW;
      END $$;
      DROP TRIGGER IF EXISTS test_refuse_claim ON messages;
      CREATE TRIGGER test_refuse_claim BEFORE UPDATE ON messages
        FOR EACH ROW WHEN (OLD.status = 'scheduled' AND NEW.status = 'sending') EXECUTE FUNCTION test_refuse_claim();
    `);
    try {
      const a = await server().account();
      // Scheduled a little ahead, so that its claim is refused from the first one on: the fast path's and the
      // policy's claims both refused once, as a paused campaign's are.
      const res = await a.request("POST", "/api/v1/scheduler/schedule", {
        to: "+14155550301",
        body: "judged again",
        from: "ACME",
        scheduledAt: new Date(Date.now() + 1500).toISOString(),
      });
      expect(res.status).toBe(201);
      const { messageId } = (await res.json()) as { messageId: string };
      await db("test_refused_claims").insert({ message_id: messageId, refusals: 2 });
      const sent = await waitUntil(
        "the message sent after its refused claims",
        async () => {
          const m = await db("messages").where({ id: messageId }).first("status");
          return m && m.status !== "scheduled" && m.status !== "sending" && m.status;
        },
        15_000,
      );
      expect(["sent", "delivered"]).toContain(sent);
      // Both refusals happened: the race was run, not skipped.
      expect((await db("test_refused_claims").where({ message_id: messageId }).first("refusals")).refusals).toBe(0);
    } finally {
      await db.raw(`DROP TRIGGER IF EXISTS test_refuse_claim ON messages`);
    }
  });
});
