import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../helpers/limits.js";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

const DEFAULTS = {
  optOutReply: "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
  optInReply: "You have been resubscribed. Reply STOP to unsubscribe.",
  helpReply: "Reply STOP to unsubscribe. Msg & data rates may apply.",
  quietHours: null,
  defaultTimeZone: "UTC",
  maxSegmentsPerSecond: null,
  smartEncoding: false,
};

describe("account settings", () => {
  it("GET /account shows the account with the default reply texts", async () => {
    const a = await server().account("settings-acme");
    const res = await a.request("GET", "/api/v1/account");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      accountId: a.accountId,
      name: "settings-acme",
      settings: DEFAULTS,
      limits: DEFAULT_LIMITS,
      usage: null,
    });
  });

  it("PATCH /account/settings refuses the operator's limits (400), and maxSegmentsPerSecond stays the account's own", async () => {
    const a = await server().account();
    for (const field of ["weight", "dailySegmentQuota", "allowedCountries", "senderIds", "selfServiceNumbers", "suspended"]) {
      const res = await a.request("PATCH", "/api/v1/account/settings", { [field]: null });
      expect(res.status, field).toBe(400);
      expect((await problemOf(res)).errors).toEqual([{ path: `/body/${field}`, message: "is not a known field" }]);
    }
    expect((await a.request("PATCH", "/api/v1/account/settings", { maxSegmentsPerSecond: 5 })).status).toBe(200);
  });

  it("PATCH changes only the given settings, null turns a reply off, and another account keeps its own", async () => {
    const a = await server().account();
    const b = await server().account();
    const res = await a.request("PATCH", "/api/v1/account/settings", { helpReply: "Call us at +14155550100.", optInReply: null });
    expect(res.status).toBe(200);
    const expected = { ...DEFAULTS, helpReply: "Call us at +14155550100.", optInReply: null };
    expect(await res.json()).toEqual(expected);
    const again = await a.request("PATCH", "/api/v1/account/settings", { optOutReply: "Bye." });
    expect(await again.json()).toEqual({ ...expected, optOutReply: "Bye." });
    expect((await a.client.GET("/api/v1/account")).data!.settings).toEqual({ ...expected, optOutReply: "Bye." });
    expect((await b.client.GET("/api/v1/account")).data!.settings).toEqual(DEFAULTS);
  });

  it("rejects unknown fields, empty and over-long texts with 400", async () => {
    const a = await server().account();
    const unknown = await a.request("PATCH", "/api/v1/account/settings", { stopReply: "x" });
    expect((await problemOf(unknown)).errors).toEqual([{ path: "/body/stopReply", message: "is not a known field" }]);
    // Nested objects too (quietHours.timeZone was dropped silently, and the hours stored without it).
    const nested = await a.request("PATCH", "/api/v1/account/settings", {
      quietHours: { start: "21:00", end: "08:00", timeZone: "Europe/Paris" },
    });
    expect(nested.status).toBe(400);
    expect((await problemOf(nested)).errors).toEqual([{ path: "/body/quietHours/timeZone", message: "is not a known field" }]);
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "" })).status).toBe(400);
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "x".repeat(321) })).status).toBe(400);
    // Within the schema's 320 characters, but three segments: an automatic reply is at most two.
    expect((await problemOf(await a.request("PATCH", "/api/v1/account/settings", { helpReply: "x".repeat(320) }))).code).toBe(
      "reply_too_long",
    );
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "x".repeat(306) })).status).toBe(200);
  });

  it("stores the sending policy: quiet hours (across midnight), a default time zone and a throughput cap; null turns them off", async () => {
    const a = await server().account();
    const policy = { quietHours: { start: "21:00", end: "08:00" }, defaultTimeZone: "America/Los_Angeles", maxSegmentsPerSecond: 25 };
    const res = await a.request("PATCH", "/api/v1/account/settings", policy);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...DEFAULTS, ...policy });
    const off = await a.request("PATCH", "/api/v1/account/settings", { quietHours: null, maxSegmentsPerSecond: null });
    expect(await off.json()).toEqual({ ...DEFAULTS, defaultTimeZone: "America/Los_Angeles" });
  });

  it("refuses an unknown time zone and an empty quiet window with 422, malformed times and a cap below 1 with 400, and keeps what was stored", async () => {
    const a = await server().account();
    await a.request("PATCH", "/api/v1/account/settings", {
      defaultTimeZone: "Europe/Berlin",
      quietHours: { start: "22:00", end: "07:30" },
    });
    const zone = await a.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "Mars/Olympus_Mons" });
    expect(zone.status).toBe(422);
    expect(await problemOf(zone)).toMatchObject({ code: "invalid_time_zone", errors: [{ path: "/body/defaultTimeZone" }] });
    const empty = await a.request("PATCH", "/api/v1/account/settings", { quietHours: { start: "09:00", end: "09:00" } });
    expect(empty.status).toBe(422);
    expect((await problemOf(empty)).code).toBe("invalid_quiet_hours");
    for (const quietHours of [{ start: "24:00", end: "08:00" }, { start: "9:00", end: "10:00" }, { start: "21:00" }]) {
      expect((await a.request("PATCH", "/api/v1/account/settings", { quietHours })).status).toBe(400);
    }
    expect((await a.request("PATCH", "/api/v1/account/settings", { maxSegmentsPerSecond: 0 })).status).toBe(400);
    expect((await a.request("PATCH", "/api/v1/account/settings", { maxSegmentsPerSecond: 1.5 })).status).toBe(400);
    expect((await a.client.GET("/api/v1/account")).data!.settings).toEqual({
      ...DEFAULTS,
      defaultTimeZone: "Europe/Berlin",
      quietHours: { start: "22:00", end: "07:30" },
    });
  });
});
