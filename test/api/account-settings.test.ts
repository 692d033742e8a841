import { describe, expect, it } from "vitest";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

const DEFAULTS = {
  optOutReply: "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
  optInReply: "You have been resubscribed. Reply STOP to unsubscribe.",
  helpReply: "Reply STOP to unsubscribe. Msg & data rates may apply.",
};

describe("account settings", () => {
  it("GET /account shows the account with the default reply texts", async () => {
    const a = await server().account("settings-acme");
    const res = await a.request("GET", "/api/v1/account");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accountId: a.accountId, name: "settings-acme", settings: DEFAULTS });
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
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "" })).status).toBe(400);
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "x".repeat(321) })).status).toBe(400);
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "x".repeat(320) })).status).toBe(200);
  });
});
