import { describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

const schedule = (overrides: Record<string, unknown> = {}) => ({
  to: "+14155550123",
  body: "Your appointment is tomorrow at 10:00.",
  from: "ACME",
  scheduledAt: inHours(1),
  ...overrides,
});

describe("schedule a message", () => {
  it("stores the message with its job and answers 201 scheduled", async () => {
    const a = await server().account();
    const scheduledAt = inHours(2);
    const { data, response } = await a.client.POST("/api/v1/scheduler/schedule", { body: schedule({ scheduledAt }) });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ status: "scheduled", scheduledAt: new Date(scheduledAt).toISOString() });
    expect(data!.messageId).toMatch(/^[0-9a-f-]{36}$/);
    const job = await server().db("jobs").where({ id: data!.jobId }).first();
    expect(job).toMatchObject({ kind: "send_message", state: "available", payload: { messageId: data!.messageId } });
    expect(job.run_at.toISOString()).toBe(new Date(scheduledAt).toISOString());
  });

  it("normalises the phone number to E.164 and reports segments and encoding", async () => {
    const a = await server().account();
    const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: schedule({ to: "+1 (415) 555-0123", body: "€".repeat(81) }),
    });
    const { data: message } = await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: data!.messageId } } });
    expect(message).toMatchObject({ to: "+14155550123", encoding: "GSM-7", segments: 2, status: "scheduled", campaignId: null });
    expect(message!.history.map((h) => h.status)).toEqual(["scheduled"]);
  });

  it("accepts an E.164 sender and rejects a bad one", async () => {
    const a = await server().account();
    await a.holds("+14155550199");
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "+14155550199" }))).status).toBe(201);
    const res = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ from: "TOO-LONG-SENDER" }));
    expect(res.status).toBe(400);
    expect((await problemOf(res)).errors).toEqual([expect.objectContaining({ path: "/body/from" })]);
  });

  it.each([
    ["without +country prefix", "4155550123"],
    ["invalid for its country", "+1415555012"],
    ["letters", "+1415CALLME"],
  ])("rejects a phone number %s with 400 on /body/to", async (_why, to) => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ to }));
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.code).toBe("validation_failed");
    expect(problem.errors).toEqual([expect.objectContaining({ path: "/body/to" })]);
  });

  it("rejects a scheduledAt in the past or now with 422 scheduled_at_not_in_future, and more than 365 days ahead", async () => {
    const a = await server().account();
    const past = await a.request(
      "POST",
      "/api/v1/scheduler/schedule",
      schedule({ scheduledAt: new Date(Date.now() - 1000).toISOString() }),
    );
    expect(past.status).toBe(422);
    expect((await problemOf(past)).code).toBe("scheduled_at_not_in_future");
    const far = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ scheduledAt: inHours(366 * 24) }));
    expect(far.status).toBe(422);
    expect((await problemOf(far)).code).toBe("scheduled_at_too_far");
  });

  it("refuses an impossible scheduledAt with 400, never rolling it into another day", async () => {
    const a = await server().account();
    for (const scheduledAt of [
      "2027-02-31T10:00:00Z",
      "2027-04-31T10:00:00Z",
      "2027-02-29T10:00:00Z",
      "2027-06-01T24:00:00Z",
      "2027-06-01T25:00:00Z",
      "2027-06-01T10:60:00Z",
      "2027-06-01T10:00:00-24:00",
    ]) {
      const res = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ scheduledAt }));
      expect(res.status, scheduledAt).toBe(400);
      const problem = await problemOf(res);
      expect(problem.code, scheduledAt).toBe("validation_failed");
      expect(JSON.stringify(problem.errors), scheduledAt).toContain("/body/scheduledAt");
      const campaign = await a.request("POST", "/api/v1/campaigns", {
        name: "c",
        message: "hi",
        type: "scheduled",
        recipients: ["+14155550123"],
        scheduledAt,
      });
      expect(campaign.status, `campaign ${scheduledAt}`).toBe(400);
    }
    // The last day of a month two months ahead is a day (Date.UTC's day 0 is the month before's last).
    const now = new Date();
    const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 0, 10)).toISOString();
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ scheduledAt: lastDay }))).status).toBe(201);
    expect(Number((await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" }))[0]!.n)).toBe(1);
  });

  it("refuses a cursor with an impossible date with 400, not 500", async () => {
    const a = await server().account();
    const uuid = "0196f2a0-0000-7000-8000-000000000000";
    for (const at of ["0000-01-01T00:00:00.000Z", "2027-02-30T00:00:00.000Z", "2027-06-01T24:00:00.000Z"]) {
      const cursor = Buffer.from(JSON.stringify([at, uuid])).toString("base64url");
      const res = await a.request("GET", `/api/v1/messages?cursor=${cursor}`);
      expect(res.status, at).toBe(400);
      expect((await problemOf(res)).code, at).toBe("validation_failed");
    }
  });

  it("requires every field and limits the body to 1600 characters", async () => {
    const a = await server().account();
    for (const field of ["to", "body", "from", "scheduledAt"]) {
      const body = schedule();
      delete (body as Record<string, unknown>)[field];
      const res = await a.request("POST", "/api/v1/scheduler/schedule", body);
      expect(res.status, field).toBe(400);
      expect((await problemOf(res)).errors?.[0]?.path).toBe(`/body/${field}`);
    }
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ body: "x".repeat(1600) }))).status).toBe(201);
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ body: "x".repeat(1601) }))).status).toBe(400);
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ body: "" }))).status).toBe(400);
  });
});

describe("cancel a scheduled message", () => {
  it("cancels, repeats idempotently with the same body, and cancels the job", async () => {
    const a = await server().account();
    const { data } = await a.client.POST("/api/v1/scheduler/schedule", { body: schedule() });
    const first = await a.request("DELETE", `/api/v1/scheduler/cancel/${data!.messageId}`);
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toMatchObject({ messageId: data!.messageId, status: "cancelled" });
    const again = await a.request("DELETE", `/api/v1/scheduler/cancel/${data!.messageId}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
    expect((await server().db("jobs").where({ id: data!.jobId }).first()).state).toBe("cancelled");
    const { data: message } = await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: data!.messageId } } });
    expect(message!.status).toBe("cancelled");
    expect(message!.history.map((h) => h.status)).toEqual(["scheduled", "cancelled"]);
  });

  it("answers 409 not_cancellable once sending has begun or the message is final", async () => {
    const a = await server().account();
    for (const status of ["sending", "sent", "delivered", "failed", "undelivered"]) {
      const { data } = await a.client.POST("/api/v1/scheduler/schedule", { body: schedule() });
      // Stand-in for the worker: the row is where the send path puts it.
      const failedAt = status === "failed" || status === "undelivered" ? new Date() : null;
      await server().db("messages").where({ id: data!.messageId }).update({ status, failed_at: failedAt });
      const res = await a.request("DELETE", `/api/v1/scheduler/cancel/${data!.messageId}`);
      expect(res.status, status).toBe(409);
      expect((await problemOf(res)).code).toBe("not_cancellable");
      expect((await server().db("messages").where({ id: data!.messageId }).first()).status).toBe(status);
    }
  });

  it("answers 404 for an unknown message and 400 for a malformed id", async () => {
    const a = await server().account();
    const unknown = await a.request("DELETE", "/api/v1/scheduler/cancel/00000000-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect((await problemOf(unknown)).code).toBe("not_found");
    const bad = await a.request("DELETE", "/api/v1/scheduler/cancel/nope");
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.[0]?.path).toBe("/path/messageId");
  });
});

describe("list messages", () => {
  it("pages newest first with a cursor and filters by status", async () => {
    const a = await server().account();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await a.client.POST("/api/v1/scheduler/schedule", { body: schedule() })).data!.messageId);
    await a.request("DELETE", `/api/v1/scheduler/cancel/${ids[0]}`);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await a.client.GET("/api/v1/messages", { params: { query: { limit: 2, cursor } } });
      expect(data!.data.length).toBeLessThanOrEqual(2);
      seen.push(...data!.data.map((m) => m.messageId));
      cursor = data!.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const { data: cancelled } = await a.client.GET("/api/v1/messages", { params: { query: { status: "cancelled" } } });
    expect(cancelled!.data.map((m) => m.messageId)).toEqual([ids[0]]);
    const bad = await a.request("GET", "/api/v1/messages?cursor=garbage");
    expect(bad.status).toBe(400);
    expect((await a.request("GET", "/api/v1/messages?limit=101")).status).toBe(400);
    expect((await a.request("GET", "/api/v1/messages?color=red")).status).toBe(400);
  });
});
