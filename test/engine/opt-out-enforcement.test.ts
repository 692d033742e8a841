// The opt-out list at fan-out and at send time, through a real worker and the simulator.
import { describe, expect, it } from "vitest";
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);

const getMessage = async (a: TestAccount, messageId: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } })).data!;

describe("opt-out enforcement", () => {
  it("a message whose recipient opts out after scheduling is failed recipient_opted_out, never submitted, with dlr.failed", async () => {
    const a = await server().account();
    const receiver = await startReceiver();
    await a.client.POST("/api/v1/webhooks", { body: { name: "r", url: receiver.url } });
    const at = new Date(Date.now() + 3000).toISOString();
    const { data: blocked } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550180", body: "promo", from: "ACME", scheduledAt: at },
    });
    const { data: other } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550181", body: "promo", from: "ACME", scheduledAt: at },
    });
    expect((await a.request("PUT", "/api/v1/opt-outs/14155550180")).status).toBe(201);

    const failed = await waitUntil("the opted-out message failed", async () => {
      const m = await getMessage(a, blocked!.messageId);
      return m.status === "failed" && m;
    });
    expect(failed.error).toEqual({ code: "recipient_opted_out", message: expect.any(String) });
    expect(failed.history.map((h) => h.status)).toEqual(["scheduled", "failed"]);
    await waitUntil("the other message delivered", async () => (await getMessage(a, other!.messageId)).status === "delivered");
    const submissions = await countSubmissionsByMessage(server().db);
    expect(submissions.get(blocked!.messageId)).toBeUndefined();
    expect(submissions.get(other!.messageId)).toBe(1);
    const [receipt] = await receiver.waitFor("the dlr.failed receipt", (all) =>
      all.some((r) => r.json.messageId === blocked!.messageId && r.json.event === "dlr.failed"),
    );
    expect(receipt).toBeDefined();
    const dlr = receiver.received.find((r) => r.json.messageId === blocked!.messageId)!;
    expect(dlr.json).toMatchObject({ event: "dlr.failed", status: "failed", error: { code: "recipient_opted_out" } });
    await receiver.close();
  });

  it("a campaign skips opted-out contacts (no message) and counts them in stats.optedOut", async () => {
    const a = await server().account();
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "all" } });
    for (const phone of ["+14155550182", "+14155550183", "+14155550184"]) {
      await a.client.POST("/api/v1/contacts", { body: { phone, groupId: group!.groupId } });
    }
    await a.request("PUT", "/api/v1/opt-outs/14155550183");
    const { data: campaign } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "promo", message: "30% off", type: "instant", groupId: group!.groupId },
    });
    const done = await waitUntil("the campaign completed", async () => {
      const { data } = await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: campaign!.campaignId } } });
      return data!.status === "completed" && data;
    });
    expect(done.stats).toMatchObject({ total: 3, delivered: 2, optedOut: 1, scheduled: 0 });
    const { data: messages } = await a.client.GET("/api/v1/messages", { params: { query: { campaignId: campaign!.campaignId } } });
    expect(messages!.data.map((m) => m.to).sort()).toEqual(["+14155550182", "+14155550184"]);
  });

  it("a campaign whose every recipient opted out is refused (422 empty_audience); one among others is skipped at fan-out", async () => {
    const a = await server().account();
    await a.request("PUT", "/api/v1/opt-outs/14155550185");
    const none = await a.request("POST", "/api/v1/campaigns", {
      name: "promo",
      message: "hi",
      type: "instant",
      recipients: ["+14155550185"],
    });
    expect(none.status).toBe(422);
    expect(((await none.json()) as { code: string }).code).toBe("empty_audience");
    const { data: campaign } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "promo", message: "hi", type: "instant", recipients: ["+14155550185", "+14155550186"] },
    });
    const done = await waitUntil("the campaign completed", async () => {
      const { data } = await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: campaign!.campaignId } } });
      return data!.status === "completed" && data;
    });
    expect(done.stats).toMatchObject({ total: 2, optedOut: 1, scheduled: 0, delivered: 1 });
  });
});
