// The routing table as a form: each route a fieldset (its name, what it matches, its pool of connectors with
// weights, its fallback in order), reordered with buttons; saved whole, as PUT /routes takes it. The JSON stays
// one click away (Routing.tsx).
import type { Schemas } from "../../api.js";
import { Field } from "../../ui.js";
import type { AccountName } from "./accountNames.js";

type Route = Schemas["Route"];
type Category = NonNullable<Route["match"]["categories"]>[number];
type Priority = NonNullable<Route["match"]["priorities"]>[number];
type Connector = { connectorId: string; name: string };

/** A route as the form edits it: list fields as the text typed, comma or space separated. */
export interface DraftRoute {
  key: number;
  name: string;
  prefixes: string;
  countries: string;
  senders: string;
  /** The accounts it matches, picked by name (none: every account). */
  accountIds: string[];
  categories: Category[];
  priorities: Priority[];
  connectors: { connectorId: string; weight: number }[];
  fallback: string[];
}

let nextKey = 0;
const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export const toDraft = (r: Route): DraftRoute => ({
  key: nextKey++,
  name: r.name,
  prefixes: (r.match.prefixes ?? []).join(", "),
  countries: (r.match.countries ?? []).join(", "),
  senders: (r.match.senders ?? []).join(", "),
  accountIds: r.match.accountIds ?? [],
  categories: r.match.categories ?? [],
  priorities: r.match.priorities ?? [],
  connectors: r.connectors.map((c) => ({ connectorId: c.connectorId, weight: c.weight ?? 1 })),
  fallback: r.fallback ?? [],
});

/** The route PUT /routes takes: empty match lists and an empty fallback left out. */
export function fromDraft(d: DraftRoute): Route {
  const match: Route["match"] = {};
  if (words(d.prefixes).length) match.prefixes = words(d.prefixes);
  if (words(d.countries).length) match.countries = words(d.countries).map((c) => c.toUpperCase());
  if (words(d.senders).length) match.senders = words(d.senders);
  if (d.accountIds.length) match.accountIds = d.accountIds;
  if (d.categories.length) match.categories = d.categories;
  if (d.priorities.length) match.priorities = d.priorities;
  return {
    name: d.name.trim(),
    match,
    connectors: d.connectors.map((c) => ({ connectorId: c.connectorId, weight: c.weight })),
    ...(d.fallback.length ? { fallback: d.fallback } : {}),
  };
}

const CATEGORIES: Category[] = ["transactional", "marketing"];
const PRIORITIES: Priority[] = ["high", "normal", "low"];

/** Moves item `i` of `list` by `by` places (a copy). */
const moved = <T,>(list: T[], i: number, by: number) => {
  const copy = [...list];
  const [item] = copy.splice(i, 1);
  copy.splice(i + by, 0, item!);
  return copy;
};
const toggled = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((x) => x !== item));

export function RoutesForm({
  routes,
  connectors,
  accounts,
  onChange,
}: {
  routes: DraftRoute[];
  connectors: Connector[];
  accounts: AccountName[];
  onChange: (r: DraftRoute[]) => void;
}) {
  const set = (i: number, change: Partial<DraftRoute>) => onChange(routes.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const first = connectors[0]?.connectorId ?? "";
  return (
    <div data-testid="routes-form">
      {routes.length === 0 && <p class="muted">No routes: every message fails no_route. Add one.</p>}
      {routes.map((r, i) => (
        <RouteFields
          key={r.key}
          route={r}
          index={i}
          count={routes.length}
          connectors={connectors}
          accounts={accounts}
          onChange={(change) => set(i, change)}
          onMove={(by) => onChange(moved(routes, i, by))}
          onRemove={() => onChange(routes.filter((_r, j) => j !== i))}
        />
      ))}
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            // A new route goes before the catch-all (a route that matches everything), where it can match.
            const catchAll = routes.findIndex((r) => Object.keys(fromDraft(r).match).length === 0);
            const at = catchAll < 0 ? routes.length : catchAll;
            const added = toDraft({ name: "", match: {}, connectors: [{ connectorId: first, weight: 1 }] });
            onChange([...routes.slice(0, at), added, ...routes.slice(at)]);
          }}
        >
          Add a route
        </button>
      </div>
    </div>
  );
}

function RouteFields({
  route: r,
  index: i,
  count,
  connectors,
  accounts,
  onChange,
  onMove,
  onRemove,
}: {
  route: DraftRoute;
  index: number;
  count: number;
  connectors: Connector[];
  accounts: AccountName[];
  onChange: (change: Partial<DraftRoute>) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const id = `route-${r.key}`;
  const title = `Route ${i + 1}${r.name ? ` “${r.name}”` : ""}`;
  const options = connectors.map((c) => (
    <option key={c.connectorId} value={c.connectorId}>
      {c.name}
    </option>
  ));
  const text = (field: "name" | "prefixes" | "countries" | "senders", label: string, hint?: string) => (
    <Field id={`${id}-${field}`} label={label} hint={hint}>
      <input
        id={`${id}-${field}`}
        value={r[field]}
        required={field === "name"}
        maxLength={field === "name" ? 64 : undefined}
        aria-describedby={hint ? `${id}-${field}-hint` : undefined}
        onInput={(e) => onChange({ [field]: e.currentTarget.value })}
      />
    </Field>
  );
  return (
    <fieldset class="route" data-route-form={r.name}>
      <legend>{title}</legend>
      <div class="grid-3">
        {text("name", "Name")}
        {text("prefixes", "Recipient prefixes", "e.g. +44, +4477; empty: any")}
        {text("countries", "Countries", "e.g. GB, IE; empty: any")}
        {text("senders", "Senders", "empty: any")}
      </div>
      <div class="grid-3">
        <fieldset class="checkboxes account-picks">
          <legend>Accounts (none: every account)</legend>
          {/* An account matched that is not among the names loaded stays picked, shown by its id. */}
          {[
            ...accounts,
            ...r.accountIds.filter((a) => !accounts.some((x) => x.accountId === a)).map((a) => ({ accountId: a, name: a })),
          ].map((a) => (
            <label key={a.accountId} class="inline">
              <input
                type="checkbox"
                checked={r.accountIds.includes(a.accountId)}
                onChange={(e) => onChange({ accountIds: toggled(r.accountIds, a.accountId, e.currentTarget.checked) })}
              />
              {a.name}
            </label>
          ))}
        </fieldset>
        <fieldset class="checkboxes">
          <legend>Categories (none: any)</legend>
          {CATEGORIES.map((c) => (
            <label key={c} class="inline">
              <input
                type="checkbox"
                checked={r.categories.includes(c)}
                onChange={(e) => onChange({ categories: toggled(r.categories, c, e.currentTarget.checked) })}
              />
              {c}
            </label>
          ))}
        </fieldset>
        <fieldset class="checkboxes">
          <legend>Priorities (none: any)</legend>
          {PRIORITIES.map((p) => (
            <label key={p} class="inline">
              <input
                type="checkbox"
                checked={r.priorities.includes(p)}
                onChange={(e) => onChange({ priorities: toggled(r.priorities, p, e.currentTarget.checked) })}
              />
              {p}
            </label>
          ))}
        </fieldset>
      </div>
      <fieldset>
        <legend>Pool: one bound connector chosen by weight</legend>
        {r.connectors.map((c, j) => (
          <div key={j} class="inline-row">
            <label class="inline" for={`${id}-c${j}`}>
              Connector {j + 1}
            </label>
            <select
              id={`${id}-c${j}`}
              value={c.connectorId}
              onChange={(e) =>
                onChange({ connectors: r.connectors.map((x, k) => (k === j ? { ...x, connectorId: e.currentTarget.value } : x)) })
              }
            >
              {options}
            </select>
            <label class="inline" for={`${id}-w${j}`}>
              Weight
            </label>
            <input
              id={`${id}-w${j}`}
              type="number"
              min={1}
              max={100}
              value={c.weight}
              class="narrow"
              onInput={(e) =>
                onChange({ connectors: r.connectors.map((x, k) => (k === j ? { ...x, weight: Number(e.currentTarget.value) } : x)) })
              }
            />
            <button
              type="button"
              class="small"
              disabled={r.connectors.length === 1}
              aria-label={`Remove connector ${j + 1} of ${title}`}
              onClick={() => onChange({ connectors: r.connectors.filter((_x, k) => k !== j) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="small"
          onClick={() => onChange({ connectors: [...r.connectors, { connectorId: connectors[0]?.connectorId ?? "", weight: 1 }] })}
        >
          Add a connector to the pool
        </button>
      </fieldset>
      <fieldset>
        <legend>Fallback, tried in order when the pool cannot take it</legend>
        {r.fallback.length === 0 && <p class="muted">None.</p>}
        {r.fallback.map((f, j) => (
          <div key={j} class="inline-row">
            <label class="inline" for={`${id}-f${j}`}>
              Fallback {j + 1}
            </label>
            <select
              id={`${id}-f${j}`}
              value={f}
              onChange={(e) => onChange({ fallback: r.fallback.map((x, k) => (k === j ? e.currentTarget.value : x)) })}
            >
              {options}
            </select>
            <button
              type="button"
              class="small"
              aria-label={`Remove fallback ${j + 1} of ${title}`}
              onClick={() => onChange({ fallback: r.fallback.filter((_x, k) => k !== j) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button type="button" class="small" onClick={() => onChange({ fallback: [...r.fallback, connectors[0]?.connectorId ?? ""] })}>
          Add a fallback
        </button>
      </fieldset>
      <div class="actions">
        <button type="button" disabled={i === 0} aria-label={`Move up: ${title}`} onClick={() => onMove(-1)}>
          Move up
        </button>
        <button type="button" disabled={i === count - 1} aria-label={`Move down: ${title}`} onClick={() => onMove(1)}>
          Move down
        </button>
        <button type="button" class="danger" aria-label={`Remove route: ${title}`} onClick={onRemove}>
          Remove route
        </button>
      </div>
    </fieldset>
  );
}
