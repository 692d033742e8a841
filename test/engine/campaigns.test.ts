import { describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, defaultSenderId: "DefaultCo" });
useTestWorker(server);

async function groupWith(
  a: TestAccount,
  name: string,
  contacts: { phone: string; firstName?: string; customFields?: Record<string, string> }[],
) {
  const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name } });
  for (const c of contacts) await a.client.POST("/api/v1/contacts", { body: { ...c, groupId: group!.groupId } });
  return group!.groupId;
}

const campaign = async (a: TestAccount, id: string) =>
  (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: id } } })).data!;

const campaignMessages = async (a: TestAccount, campaignId: string) =>
  (await a.client.GET("/api/v1/messages", { params: { query: { campaignId, limit: 100 } } })).data!.data;

describe("campaigns", () => {
  it("sends an instant campaign to every contact of a group, personalised, and completes", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "vip", [
      { phone: "+14155550201", firstName: "Ada" },
      { phone: "+14155550202", firstName: "Grace" },
      { phone: "+14155550203" },
    ]);
    const { data: created, response } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Promo", message: "Hi {{firstName}}, 30% off!", type: "instant", groupId },
    });
    expect(response.status).toBe(201);
    expect(created).toMatchObject({ name: "Promo", type: "instant", groupId, status: "sending", from: "DefaultCo", scheduledAt: null });
    expect(created!.stats.total).toBe(3);

    const done = await waitUntil("campaign completed", async () => {
      const c = await campaign(a, created!.campaignId);
      return c.status === "completed" && c;
    });
    expect(done.stats).toEqual({
      total: 3,
      scheduled: 0,
      deferred: 0,
      sent: 0,
      delivered: 3,
      failed: 0,
      undelivered: 0,
      cancelled: 0,
      optedOut: 0,
      skipped: 0,
      skippedBy: {},
    });
    const messages = await campaignMessages(a, created!.campaignId);
    expect(messages.map((m) => m.body).sort()).toEqual(["Hi , 30% off!", "Hi Ada, 30% off!", "Hi Grace, 30% off!"]);
    expect(new Set(messages.map((m) => m.messageId)).size).toBe(3);
    for (const m of messages) expect(m).toMatchObject({ campaignId: created!.campaignId, from: "DefaultCo", status: "delivered" });
  });

  it("snapshots the audience: a contact added to the group after creation gets nothing", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "snap", [{ phone: "+14155550211" }]);
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Snap", message: "hello", type: "scheduled", groupId, scheduledAt: inHours(1) },
    });
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550212", groupId } });
    await waitUntil("fan-out done", async () => (await campaignMessages(a, created!.campaignId)).length === 1);
    const messages = await campaignMessages(a, created!.campaignId);
    expect(messages.map((m) => m.to)).toEqual(["+14155550211"]);
    expect((await campaign(a, created!.campaignId)).stats.total).toBe(1);
  });

  it("sends to a recipients list with mixed outcomes and live stats", async () => {
    const a = await server().account();
    const recipients = ["+14155550001", "+14155550002", "+14155550003", "+14155550304", "+1 415 555 0304"];
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "List", message: "Your code is 1234", type: "instant", recipients, from: "ACME" },
    });
    expect(created).toMatchObject({ groupId: null, from: "ACME" });
    expect(created!.stats.total).toBe(4); // the duplicate is sent once
    // 0001 fails, 0002 is undelivered, 0003 stays sent: the campaign does not complete while one is sent.
    const settled = await waitUntil("stats settled", async () => {
      const c = await campaign(a, created!.campaignId);
      return c.stats.failed === 1 && c.stats.undelivered === 1 && c.stats.sent === 1 && c.stats.delivered === 1 && c;
    });
    expect(settled.status).toBe("sending");
    const { data: list } = await a.client.GET("/api/v1/campaigns");
    expect(list!.data.map((c) => c.campaignId)).toContain(created!.campaignId);
  });

  it("cancels a scheduled campaign: every message cancelled, none sent; repeat cancel is the same", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "later", [{ phone: "+14155550221" }, { phone: "+14155550222" }]);
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Later", message: "soon", type: "scheduled", groupId, scheduledAt: inHours(2) },
    });
    expect(created!.status).toBe("scheduled");
    await waitUntil("fan-out done", async () => (await campaignMessages(a, created!.campaignId)).length === 2);
    const res = await a.request("POST", `/api/v1/campaigns/${created!.campaignId}/cancel`);
    expect(res.status).toBe(200);
    const cancelled = (await res.json()) as { status: string; stats: Record<string, number> };
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.stats).toMatchObject({ total: 2, cancelled: 2, scheduled: 0 });
    for (const m of await campaignMessages(a, created!.campaignId)) expect(m.status).toBe("cancelled");
    const again = await a.request("POST", `/api/v1/campaigns/${created!.campaignId}/cancel`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { status: string }).status).toBe("cancelled");
    const jobs = await server()
      .db("jobs")
      .whereIn("id", await server().db("messages").where({ campaign_id: created!.campaignId }).pluck("job_id"));
    expect(jobs.map((j) => j.state)).toEqual(["cancelled", "cancelled"]);
  });

  it("answers 409 not_cancellable for a completed campaign, 404 for another account's", async () => {
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Done", message: "x", type: "instant", recipients: ["+14155550231"] },
    });
    await waitUntil("completed", async () => (await campaign(a, created!.campaignId)).status === "completed");
    const res = await a.request("POST", `/api/v1/campaigns/${created!.campaignId}/cancel`);
    expect(res.status).toBe(409);
    expect((await problemOf(res)).code).toBe("not_cancellable");
    const b = await server().account();
    expect((await b.request("POST", `/api/v1/campaigns/${created!.campaignId}/cancel`)).status).toBe(404);
  });

  it("the cleaner completes a finished campaign whose completion check was lost in a crash", async () => {
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Lost", message: "x", type: "instant", recipients: ["+14155550251"] },
    });
    await waitUntil("completed", async () => (await campaign(a, created!.campaignId)).status === "completed");
    await server().db("campaigns").where({ id: created!.campaignId }).update({ status: "sending", completed_at: null });
    const { completeFinishedCampaignsChore } = await import("../../server/jobs/maintenance/chores.js");
    expect(await completeFinishedCampaignsChore(server().db).runOnce()).toBeGreaterThanOrEqual(1);
    expect((await campaign(a, created!.campaignId)).status).toBe("completed");
  });

  it("rejects a personalised message that would exceed 1600 characters for some contact", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "long", [{ phone: "+14155550241", firstName: "x".repeat(100) }]);
    const res = await a.request("POST", "/api/v1/campaigns", {
      name: "c",
      message: `{{firstName}}${"y".repeat(1550)}`,
      type: "instant",
      groupId,
    });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).errors?.[0]?.path).toBe("/body/message");
    expect((await a.client.GET("/api/v1/campaigns")).data!.data).toEqual([]);
  });

  it("fans out a large group in batches, answering before fan-out finishes", async () => {
    const a = await server().account();
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "big" } });
    // 2,500 contacts straight into the table (the API path is tested above).
    const rows = Array.from({ length: 2500 }, (_v, i) => ({
      account_id: a.accountId,
      phone: `+1415556${String(i).padStart(4, "0")}`,
      first_name: `N${i}`,
    }));
    for (let i = 0; i < rows.length; i += 500) {
      const ids = await server()
        .db("contacts")
        .insert(rows.slice(i, i + 500))
        .returning("id");
      await server()
        .db("contact_groups")
        .insert(ids.map(({ id }) => ({ account_id: a.accountId, contact_id: id, group_id: group!.groupId, position: 1 })));
    }
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Big", message: "Hi {{firstName}}", type: "scheduled", groupId: group!.groupId, scheduledAt: inHours(1) },
    });
    expect(created!.stats).toMatchObject({ total: 2500, scheduled: 2500 });
    await waitUntil("fan-out of 2,500", async () => {
      const c = await server().db("campaigns").where({ id: created!.campaignId }).first();
      return c.fanout_done === 2500;
    });
    const count = await server().db("messages").where({ campaign_id: created!.campaignId }).count({ n: "*" });
    expect(Number(count[0]!.n)).toBe(2500);
    const distinct = await server().db("messages").where({ campaign_id: created!.campaignId }).countDistinct({ n: "recipient" });
    expect(Number(distinct[0]!.n)).toBe(2500);
    const c = await campaign(a, created!.campaignId);
    expect(c.stats).toMatchObject({ total: 2500, scheduled: 2500 });
  });

  it("gives each message the campaign's reference and metadata, smart-encoded per recipient when asked", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "smart", [
      { phone: "+14155550291", firstName: "Zoë" },
      { phone: "+14155550292", firstName: "Bob" },
    ]);
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: {
        name: "Smart",
        message: "Hi {{firstName}} — it’s here",
        type: "instant",
        groupId,
        reference: "spring",
        metadata: { wave: "1" },
        smartEncoding: true,
      },
    });
    expect(created).toMatchObject({ reference: "spring", metadata: { wave: "1" }, smartEncoding: true });
    const messages = await waitUntil("both messages", async () => {
      const all = await campaignMessages(a, created!.campaignId);
      return all.length === 2 && all;
    });
    const byTo = Object.fromEntries(messages.map((m) => [m.to, m]));
    // ë is not GSM-7: Zoë's text stays UCS-2 as written; Bob's becomes GSM-7.
    expect(byTo["+14155550291"]).toMatchObject({
      body: "Hi Zoë — it’s here",
      sentBody: null,
      encoding: "UCS-2",
      reference: "spring",
      metadata: { wave: "1" },
    });
    expect(byTo["+14155550292"]).toMatchObject({ sentBody: "Hi Bob - it's here", encoding: "GSM-7" });
  });
});

describe("personalised campaigns", () => {
  it("fill {{lastName}} and {{custom.key}} per contact, take fallbacks, and leave out whom a placeholder would fail", async () => {
    const a = await server().account();
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "plans" } });
    const groupId = group!.groupId;
    for (const body of [
      { phone: "+14155550211", firstName: "Ada", lastName: "Lovelace", customFields: { plan: "gold" } },
      { phone: "+14155550212", firstName: "Grace", customFields: { plan: "silver" } },
      { phone: "+14155550213", firstName: "Alan", lastName: "Turing" },
    ])
      expect((await a.client.POST("/api/v1/contacts", { body: { ...body, groupId } })).response.status).toBe(201);
    const message = "Dear {{firstName}} {{lastName}}, your {{ custom.plan }} plan renews today.";
    const { data: created, response } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Renewals", message, type: "instant", groupId, fallbacks: { lastName: "customer" } },
    });
    expect(response.status).toBe(201);
    expect(created).toMatchObject({
      fallbacks: { lastName: "customer" },
      stats: { total: 2, skipped: 1, skippedBy: { missing_value: 1 } },
    });
    await waitUntil("campaign completed", async () => (await campaign(a, created!.campaignId)).status === "completed");
    const bodies = (await campaignMessages(a, created!.campaignId)).map((m) => [m.to, m.body]).sort();
    expect(bodies).toEqual([
      ["+14155550211", "Dear Ada Lovelace, your gold plan renews today."],
      ["+14155550212", "Dear Grace customer, your silver plan renews today."],
    ]);

    // Nobody left to send to: 422, nothing made.
    const none = await a.request("POST", "/api/v1/campaigns", { name: "Nobody", message: "Hi {{custom.vip}}", type: "instant", groupId });
    expect(none.status).toBe(422);
    expect((await problemOf(none)).code).toBe("empty_audience");
    // A fallback for no placeholder is refused, naming it.
    const bad = await a.request("POST", "/api/v1/campaigns", {
      name: "Bad",
      message: "Hi",
      type: "instant",
      groupId,
      fallbacks: { nickname: "x" },
    });
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.[0]?.path).toBe("/body/fallbacks/nickname");
  });
});

describe("personalisation reads a contact's own fields only", () => {
  it("{{custom.valueOf}}, {{custom.constructor}} and the like are missing values: a fallback, else skipped", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "protos", [
      { phone: "+14155550221", firstName: "Ada", customFields: { valueOf: "gold" } },
      { phone: "+14155550222", firstName: "Bob" },
    ]);
    // (`{{custom.__proto__}}` is no placeholder at all: a key starts with a letter.)
    for (const name of ["valueOf", "constructor", "toString", "hasOwnProperty", "isPrototypeOf"]) {
      const res = await a.request("POST", "/api/v1/campaigns", {
        name: `proto ${name}`,
        message: `Your plan: {{custom.${name}}}`,
        type: "instant",
        groupId,
      });
      // Only Ada has a field of that name (valueOf, as her own value): Bob is skipped for a missing value.
      if (name === "valueOf") {
        expect(res.status, name).toBe(201);
        const made = (await res.json()) as { campaignId: string; stats: { skipped: number; skippedBy: Record<string, number> } };
        expect(made.stats).toMatchObject({ total: 1, skipped: 1, skippedBy: { missing_value: 1 } });
        await waitUntil("campaign completed", async () => (await campaign(a, made.campaignId)).status === "completed");
        expect((await campaignMessages(a, made.campaignId)).map((m) => [m.to, m.body])).toEqual([["+14155550221", "Your plan: gold"]]);
      } else {
        expect(res.status, name).toBe(422);
        expect((await problemOf(res)).code, name).toBe("empty_audience");
      }
    }
    // With a fallback, the prototype's name takes the fallback, never a function's text.
    const { data: withFallback } = await a.client.POST("/api/v1/campaigns", {
      body: {
        name: "fallback",
        message: "Your plan: {{custom.constructor}}",
        type: "instant",
        groupId,
        fallbacks: { "custom.constructor": "basic" },
      },
    });
    await waitUntil("campaign completed", async () => (await campaign(a, withFallback!.campaignId)).status === "completed");
    expect((await campaignMessages(a, withFallback!.campaignId)).map((m) => m.body)).toEqual(["Your plan: basic", "Your plan: basic"]);
  });

  it("a recipient whose value is gone by fan-out is skipped (missing_value), never sent an empty message", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "vanishing", [
      { phone: "+14155550231", firstName: "Ada" },
      { phone: "+14155550232", firstName: "Bob" },
    ]);
    const { data: original } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "names", message: "{{firstName}}", type: "instant", groupId },
    });
    await waitUntil("original completed", async () => (await campaign(a, original!.campaignId)).status === "completed");
    // A duplicate is a draft: its audience is taken now and nothing is made until it is resumed. Bob's name goes
    // from its snapshot in the meantime, as a contact edited between creation and fan-out would.
    const copy = (await (await a.request("POST", `/api/v1/campaigns/${original!.campaignId}/duplicate`, {})).json()) as {
      campaignId: string;
    };
    await server().db("campaign_recipients").where({ campaign_id: copy.campaignId, phone: "+14155550232" }).update({ first_name: null });
    expect((await a.request("POST", `/api/v1/campaigns/${copy.campaignId}/resume`)).status).toBe(200);
    const done = await waitUntil("copy completed", async () => {
      const c = await campaign(a, copy.campaignId);
      return c.status === "completed" && c;
    });
    expect(done.stats).toMatchObject({ skipped: 1, skippedBy: { missing_value: 1 } });
    expect((await campaignMessages(a, copy.campaignId)).map((m) => [m.to, m.body])).toEqual([["+14155550231", "Ada"]]);
    expect(Number((await server().db("messages").where({ account_id: a.accountId, body: "" }).count({ n: "*" }))[0]!.n)).toBe(0);
  });
});

describe("rescheduling a campaign", () => {
  it("moves a scheduled campaign's messages and their jobs before it starts, and then never", async () => {
    const a = await server().account();
    const groupId = await groupWith(a, "later", [{ phone: "+14155550241" }, { phone: "+14155550242" }]);
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Later", message: "Soon", type: "scheduled", scheduledAt: inHours(48), groupId, validityPeriod: 3600 },
    });
    const id = created!.campaignId;
    // Fan-out made both messages, waiting two days out.
    await waitUntil("messages made", async () => (await campaignMessages(a, id)).length === 2);

    // A week out first: the messages, their validity and their jobs move with it.
    const weekOut = new Date(Date.now() + 7 * 86_400_000);
    weekOut.setMilliseconds(0);
    const moved = await a.request("PATCH", `/api/v1/campaigns/${id}`, { scheduledAt: weekOut.toISOString(), name: "Next week" });
    expect(moved.status, await moved.clone().text()).toBe(200);
    expect(await moved.json()).toMatchObject({ name: "Next week", scheduledAt: weekOut.toISOString(), status: "scheduled" });
    for (const m of await campaignMessages(a, id)) {
      expect(m).toMatchObject({ scheduledAt: weekOut.toISOString(), validUntil: new Date(weekOut.getTime() + 3_600_000).toISOString() });
    }
    const jobs = await server()
      .db("jobs")
      .whereIn(
        "id",
        (await server().db("messages").where({ campaign_id: id }).select("job_id")).map((r: { job_id: string }) => r.job_id),
      )
      .select("run_at");
    expect(jobs.map((j: { run_at: Date }) => j.run_at.toISOString())).toEqual([weekOut.toISOString(), weekOut.toISOString()]);

    // Then in a second: it is sent then, and completes.
    const soon = new Date(Date.now() + 1500).toISOString();
    expect((await a.request("PATCH", `/api/v1/campaigns/${id}`, { scheduledAt: soon })).status).toBe(200);
    await waitUntil("campaign completed", async () => (await campaign(a, id)).status === "completed");

    // Started (here, over): no more moving; a rename still works.
    const late = await a.request("PATCH", `/api/v1/campaigns/${id}`, { scheduledAt: inHours(24) });
    expect(late.status).toBe(409);
    expect((await problemOf(late)).code).toBe("campaign_started");
    expect((await a.request("PATCH", `/api/v1/campaigns/${id}`, { name: "Done" })).status).toBe(200);
    // A time in the past is refused as at creation (422, naming scheduledAt).
    const past = await a.request("PATCH", `/api/v1/campaigns/${id}`, { scheduledAt: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(422);
    expect((await problemOf(past)).errors?.[0]?.path).toBe("/body/scheduledAt");
  });
});
