// The validator's route lookup compiles each route's matcher once (server/http/validator.ts): the same matcher
// for the same route and options, matching exactly as the library's own.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { compileRouteMatchersOnce } from "../../server/http/validator.js";

type Matcher = { regexp: RegExp; keys: { name: string }[] };

describe("the validator's route matchers", () => {
  it("are compiled once per route and options, in the path-to-regexp the validator requires, and match as before", () => {
    const fromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
    const module = fromValidator("path-to-regexp") as { pathToRegexp: (path: string, o?: object) => Matcher };
    const original = module.pathToRegexp;
    const once = compileRouteMatchersOnce() as (path: string, o?: object) => Matcher;
    expect(module.pathToRegexp).toBe(once);
    expect(compileRouteMatchersOnce()).toBe(once);

    const route = "/api/v1/messages/:messageId";
    const a = once(route, { sensitive: true, strict: true });
    expect(once(route, { sensitive: true, strict: true })).toBe(a);
    // Other options, another matcher: case-insensitive matching is not shared with the sensitive one.
    const insensitive = once(route, { sensitive: false, strict: true });
    expect(insensitive).not.toBe(a);
    const fresh = original(route, { sensitive: true, strict: true });
    for (const path of ["/api/v1/messages/abc", "/api/v1/MESSAGES/abc", "/api/v1/messages/abc/", "/api/v1/messages"]) {
      expect(a.regexp.exec(path)?.slice(1) ?? null, path).toEqual(fresh.regexp.exec(path)?.slice(1) ?? null);
    }
    expect(insensitive.regexp.test("/api/v1/MESSAGES/abc")).toBe(true);
    expect(a.keys.map((k) => k.name)).toEqual(["messageId"]);
  });
});
