// The routing table's rules (docs/ROUTING.md), pure: which route a message takes and the order its connectors
// are tried in. The table and the connectors' availability are read by their owners (routing/routesTable.ts,
// providers/connectorSet.ts); this module only decides.
import { isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js/max";
import type { Category, Priority } from "../domain/sendingPolicy.js";

export interface RouteMatch {
  prefixes?: string[];
  countries?: string[];
  accountIds?: string[];
  senders?: string[];
  categories?: Category[];
  priorities?: Priority[];
}

export interface Route {
  name: string;
  match: RouteMatch;
  connectors: { connectorId: string; weight?: number }[];
  fallback?: string[];
}

/** What a route is judged on: the message as it is about to be sent (its sender already chosen). */
export interface RoutedFacts {
  to: string;
  from: string;
  accountId: string;
  category: Category;
  priority: Priority;
}

/** The FIRST route whose every given field matches (the values of one field OR-ed); empty `match` is any. */
export function matchRoute(routes: readonly Route[], m: RoutedFacts): Route | undefined {
  let country: string | undefined | null = null; // parsed once, only when a route asks
  const countryOf = () => (country === null ? (country = parsePhoneNumberFromString(m.to)?.country) : country);
  return routes.find(({ match: r }) => {
    if (r.prefixes && !r.prefixes.some((p) => m.to.startsWith(p))) return false;
    if (r.accountIds && !r.accountIds.includes(m.accountId)) return false;
    if (r.senders && !r.senders.includes(m.from)) return false;
    if (r.categories && !r.categories.includes(m.category)) return false;
    if (r.priorities && !r.priorities.includes(m.priority)) return false;
    if (r.countries) {
      const c = countryOf();
      if (c === undefined || !r.countries.includes(c)) return false;
    }
    return true;
  });
}

/** One connector a message may go to, and whether it is of the route's pool (throttling moves only within it). */
export interface Candidate {
  connectorId: string;
  pool: boolean;
}

/**
 * The order a message tries its route's connectors: the available pool connectors drawn one after another by
 * weight (the first is where it goes; the others are its failover), then the available fallback connectors in
 * their order. Each connector once. `random` returns [0, 1).
 */
export function candidatesOf(route: Route, available: (connectorId: string) => boolean, random: () => number = Math.random): Candidate[] {
  const pool = route.connectors.filter((c) => available(c.connectorId)).map((c) => ({ id: c.connectorId, weight: c.weight ?? 1 }));
  const out: Candidate[] = [];
  while (pool.length > 0) {
    let r = random() * pool.reduce((sum, c) => sum + c.weight, 0);
    let i = 0;
    while (i < pool.length - 1 && (r -= pool[i]!.weight) >= 0) i++;
    out.push({ connectorId: pool.splice(i, 1)[0]!.id, pool: true });
  }
  for (const id of route.fallback ?? [])
    if (available(id) && !out.some((c) => c.connectorId === id)) out.push({ connectorId: id, pool: false });
  return out;
}

/** Every connector a route names. */
export const connectorsOf = (route: Route): string[] => [...route.connectors.map((c) => c.connectorId), ...(route.fallback ?? [])];

/** What is wrong with a table, as `{ pointer, detail }` (empty when nothing is). */
export function routeTableErrors(
  routes: readonly Route[],
  connectorExists: (id: string) => boolean,
): { pointer: string; detail: string }[] {
  const errors: { pointer: string; detail: string }[] = [];
  const names = new Set<string>();
  routes.forEach((route, i) => {
    const at = `/routes/${i}`;
    if (names.has(route.name)) errors.push({ pointer: `${at}/name`, detail: `a route named ${route.name} comes earlier` });
    names.add(route.name);
    route.match.prefixes?.forEach((p, k) => {
      if (!/^\+[0-9]{1,15}$/.test(p)) errors.push({ pointer: `${at}/match/prefixes/${k}`, detail: "must be + and 1 to 15 digits" });
    });
    // ISO 3166-1 alpha-2 codes that have phone numbers: `UK` is no country (the United Kingdom is `GB`).
    route.match.countries?.forEach((c, k) => {
      if (!isSupportedCountry(c))
        errors.push({
          pointer: `${at}/match/countries/${k}`,
          detail: `${c} is not an ISO 3166-1 country code with phone numbers${c === "UK" ? " (the United Kingdom is GB)" : ""}`,
        });
    });
    const seen = new Set<string>();
    connectorsOf(route).forEach((id, k) => {
      const pointer = k < route.connectors.length ? `${at}/connectors/${k}/connectorId` : `${at}/fallback/${k - route.connectors.length}`;
      if (!connectorExists(id)) errors.push({ pointer, detail: `no connector ${id}` });
      else if (seen.has(id)) errors.push({ pointer, detail: `connector ${id} is named twice in this route` });
      seen.add(id);
    });
  });
  return errors;
}

/** A match with no field given: every message. */
const matchesEverything = (m: RouteMatch): boolean => Object.values(m).every((v) => v === undefined);

/**
 * Routes that can never match, as `{ pointer, detail }`: one after a route that takes every message (an empty
 * match), or after one with the very same match. Saved all the same (a table may be built in steps), and
 * answered as warnings beside the table.
 */
export function shadowedRoutes(routes: readonly Route[]): { pointer: string; detail: string }[] {
  const warnings: { pointer: string; detail: string }[] = [];
  routes.forEach((route, j) => {
    const earlier = routes.slice(0, j).find((r) => matchesEverything(r.match) || JSON.stringify(r.match) === JSON.stringify(route.match));
    if (earlier)
      warnings.push({
        pointer: `/routes/${j}`,
        detail: `never matches: the route ${earlier.name} before it takes ${matchesEverything(earlier.match) ? "every message" : "the same messages"}; move it above ${earlier.name}`,
      });
  });
  return warnings;
}
