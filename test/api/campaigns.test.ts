import { describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

describe("campaign validation", () => {
  it("answers 422 group_not_found for an unknown group and empty_audience for an empty one", async () => {
    const a = await server().account();
    const unknown = await a.request("POST", "/api/v1/campaigns", {
      name: "c",
      message: "hi",
      type: "instant",
      groupId: "00000000-0000-4000-8000-000000000000",
    });
    expect(unknown.status).toBe(422);
    expect((await problemOf(unknown)).code).toBe("group_not_found");
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "empty" } });
    const empty = await a.request("POST", "/api/v1/campaigns", { name: "c", message: "hi", type: "instant", groupId: group!.groupId });
    expect(empty.status).toBe(422);
    expect((await problemOf(empty)).code).toBe("empty_audience");
  });

  it("requires exactly one audience and scheduledAt only for scheduled campaigns", async () => {
    const a = await server().account();
    const cases = [
      { name: "c", message: "hi", type: "instant" },
      { name: "c", message: "hi", type: "instant", recipients: ["+14155550123"], groupId: "00000000-0000-4000-8000-000000000000" },
      { name: "c", message: "hi", type: "scheduled", recipients: ["+14155550123"] },
      { name: "c", message: "hi", type: "instant", recipients: ["+14155550123"], scheduledAt: inHours(1) },
      { name: "c", message: "hi", type: "broadcast", recipients: ["+14155550123"] },
      { name: "c", message: "hi", type: "instant", recipients: ["+14155550123", "555"] },
      { name: "c", message: "hi", type: "instant", recipients: [] },
    ];
    for (const body of cases) {
      const res = await a.request("POST", "/api/v1/campaigns", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problemOf(res)).code).toBe("validation_failed");
    }
    const past = await a.request("POST", "/api/v1/campaigns", {
      name: "c",
      message: "hi",
      type: "scheduled",
      recipients: ["+14155550123"],
      scheduledAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.status).toBe(422);
    expect((await problemOf(past)).code).toBe("scheduled_at_not_in_future");
  });

  it("rejects a recipients list over 10,000 numbers", async () => {
    const a = await server().account();
    const recipients = Array.from({ length: 10_001 }, () => "+14155550123");
    const res = await a.request("POST", "/api/v1/campaigns", { name: "c", message: "hi", type: "instant", recipients });
    expect(res.status).toBe(400);
  });
});
