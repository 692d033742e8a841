// The intake stages (services/acceptance/, docs/ARCHITECTURE.md "Where a new intake rule goes") as one ordered
// list: a candidate is refused once, by the first rule it breaks, with the refusal every door words the same;
// funds keeps the candidates in order while the budget pays; a door runs only the stages it names.
import { describe, expect, it } from "vitest";
import { INTAKE_STAGES, screen } from "../../server/services/acceptance/index.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const destinations = { allowedCountries: null, internationalNetworks: false, blockedPrefixes: ["+1415555019"] };

describe("the intake stages", () => {
  it("run in their documented order", () => {
    expect(INTAKE_STAGES.map((s) => s.name)).toEqual(["destination", "blocked_prefix", "held_sender", "opt_out", "funds"]);
  });

  it("refuse each candidate once, by the first rule it breaks, in the words every door uses", async () => {
    const a = await server().account();
    const { db } = server();
    await db("opt_outs").insert({ account_id: a.accountId, phone: "+14155550111", source: "api" });
    const ctx = { db, accountId: a.accountId, destinations, budget: { available: 5 } };
    const { kept, refused } = await screen(ctx, [
      { to: "+14155550190", from: "ACME", cost: 1, path: "/body/messages/0" }, // blocked
      { to: "+14155550111", from: "+14155550100", cost: 1, path: "/body/messages/1" }, // not held and opted out
      { to: "+14155550111", from: "ACME", cost: 1, path: "/body/messages/2" }, // opted out
      { to: "+14155550120", from: "ACME", cost: 3, path: "/body/messages/3" },
      { to: "+14155550121", from: "ACME", cost: 3, path: "/body/messages/4" }, // the budget is 2 by now
      { to: "+14155550122", from: "ACME", cost: 2, path: "/body/messages/5" },
    ]);
    expect(kept).toEqual([3, 5]);
    expect(Object.fromEntries([...refused].map(([i, r]) => [i, [r.stage, r.refusal.code, r.refusal.path]]))).toEqual({
      0: ["destination", "destination_blocked", "/body/messages/0/to"],
      1: ["held_sender", "sender_not_allowed", "/body/messages/1/from"],
      2: ["opt_out", "recipient_opted_out", "/body/messages/2/to"],
      4: ["funds", "insufficient_funds", "/body/messages/4"],
    });
    expect(refused.get(0)!.refusal.detail).toBe("+14155550190 is under the blocked prefix +1415555019; not accepted.");
    expect(ctx.budget.available).toBe(0);
  });

  it("run only the stages a door names: fan-out's prefix check needs no parse and refuses the same way", async () => {
    const a = await server().account();
    const ctx = { db: server().db, accountId: a.accountId, destinations };
    const { kept, refused } = await screen(
      ctx,
      [
        { to: "+14155550190", path: "" },
        { to: "+14155550120", path: "" },
      ],
      ["blocked_prefix", "opt_out"],
    );
    expect(kept).toEqual([1]);
    expect(refused.get(0)).toMatchObject({ stage: "blocked_prefix", refusal: { code: "destination_blocked" } });
  });
});
