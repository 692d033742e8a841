// The routing table's rules, pure (server/routing/routeRules.ts; docs/ROUTING.md): the first route that matches, the
// fields AND-ed and their values OR-ed; the candidates' order (the pool drawn by weight, then the fallback, each
// once, unavailable ones left out); what a table may not say.
import { describe, expect, it } from "vitest";
import { candidatesOf, matchRoute, routeTableErrors, shadowedRoutes, type Route, type RoutedFacts } from "../../server/routing/index.js";

const facts = (o: Partial<RoutedFacts> = {}): RoutedFacts => ({
  to: "+447400123456",
  from: "ACME",
  accountId: "a",
  category: "transactional",
  priority: "normal",
  ...o,
});
const route = (name: string, match: Route["match"], connectors = ["x"], fallback: string[] = []): Route => ({
  name,
  match,
  connectors: connectors.map((connectorId) => ({ connectorId })),
  fallback,
});

describe("matchRoute", () => {
  const table = [
    route("uk-marketing", { countries: ["GB"], categories: ["marketing"] }),
    route("vip", { accountIds: ["b", "c"] }),
    route("prefix", { prefixes: ["+4474", "+1"] }),
    route("rest", {}),
  ];
  it("takes the first route whose every field matches, any of a field's values", () => {
    expect(matchRoute(table, facts({ category: "marketing" }))?.name).toBe("uk-marketing");
    expect(matchRoute(table, facts({ accountId: "c" }))?.name).toBe("vip");
    expect(matchRoute(table, facts())?.name).toBe("prefix");
    expect(matchRoute(table, facts({ to: "+33612345678" }))?.name).toBe("rest");
  });
  it("matches no route when none fits", () => {
    expect(matchRoute(table.slice(0, 3), facts({ to: "+33612345678" }))).toBeUndefined();
    expect(matchRoute([route("s", { senders: ["+14155550101"], priorities: ["high"] })], facts({ priority: "high" }))).toBeUndefined();
  });
});

describe("candidatesOf", () => {
  const r: Route = {
    name: "r",
    match: {},
    connectors: [
      { connectorId: "a", weight: 70 },
      { connectorId: "b", weight: 30 },
    ],
    fallback: ["c", "a"],
  };
  it("draws the pool by weight, then the fallback in order, each connector once", () => {
    expect(
      candidatesOf(
        r,
        () => true,
        () => 0.69,
      ),
    ).toEqual([
      { connectorId: "a", pool: true },
      { connectorId: "b", pool: true },
      { connectorId: "c", pool: false },
    ]);
    expect(
      candidatesOf(
        r,
        () => true,
        () => 0.71,
      ).map((c) => c.connectorId),
    ).toEqual(["b", "a", "c"]);
  });
  it("leaves out what is not available", () => {
    expect(
      candidatesOf(
        r,
        (id) => id !== "a",
        () => 0.1,
      ),
    ).toEqual([
      { connectorId: "b", pool: true },
      { connectorId: "c", pool: false },
    ]);
    expect(candidatesOf(r, () => false)).toEqual([]);
  });
  it("splits by weight over many draws", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    let first = 0;
    for (let i = 0; i < 10_000; i++) if (candidatesOf(r, () => true, random)[0]!.connectorId === "a") first++;
    expect(first / 10_000).toBeCloseTo(0.7, 1);
  });
});

describe("routeTableErrors", () => {
  it("names every problem by where it is", () => {
    const errors = routeTableErrors([route("a", { prefixes: ["44"] }, ["x", "x"]), route("a", {}, ["nope"], ["x"])], (id) => id === "x");
    expect(errors.map((e) => e.pointer)).toEqual([
      "/routes/0/match/prefixes/0",
      "/routes/0/connectors/1/connectorId",
      "/routes/1/name",
      "/routes/1/connectors/0/connectorId",
    ]);
  });

  it("refuses a country that is not an ISO 3166-1 code with phone numbers (UK: the United Kingdom is GB)", () => {
    const errors = routeTableErrors([route("uk", { countries: ["GB", "UK", "XX", "IE"] })], () => true);
    expect(errors).toEqual([
      { pointer: "/routes/0/match/countries/1", detail: expect.stringContaining("(the United Kingdom is GB)") },
      { pointer: "/routes/0/match/countries/2", detail: expect.stringContaining("XX is not") },
    ]);
  });
});

describe("shadowedRoutes", () => {
  it("warns of a route after a catch-all or after the same match, and of nothing else", () => {
    const table = [
      route("gb", { countries: ["GB"] }),
      route("gb-again", { countries: ["GB"] }),
      route("ie", { countries: ["IE"] }),
      route("rest", {}),
      route("late", { prefixes: ["+1"] }),
    ];
    expect(shadowedRoutes(table)).toEqual([
      { pointer: "/routes/1", detail: expect.stringContaining("the route gb before it takes the same messages") },
      { pointer: "/routes/4", detail: expect.stringContaining("the route rest before it takes every message") },
    ]);
    expect(shadowedRoutes(table.slice(0, 1).concat(table.slice(2, 4)))).toEqual([]);
  });
});
