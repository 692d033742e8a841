// Generated from the OpenAPI document: every date of every request (each date-time or date in a body, at any
// depth, and each in a query) is given dates that are not instants — a leap second, 29 February of a common
// year, 31 April, a year that leaves 1970–9999 once its offset is applied — and answers 400 validation_failed
// naming it, never a 5xx and never a stored date in year 10000. A new date field is covered without editing this.
import { beforeAll, describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { requestExample } from "../helpers/examples.js";
import { problemOf, useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
const doc = loadDocument() as unknown as {
  components: { schemas: Record<string, Schema> };
  paths: Record<
    string,
    Record<
      string,
      { requestBody?: { content: Record<string, { schema: Schema }> }; parameters?: { in: string; name: string; schema: Schema }[] }
    >
  >;
};

const NOT_INSTANTS = {
  "date-time": [
    "2026-12-31T23:59:60Z",
    "2027-02-29T10:00:00Z",
    "2027-04-31T10:00:00.000Z",
    "9999-12-31T23:59:59-14:00",
    "1969-12-31T23:59:59Z",
    "0000-01-01T00:00:00Z",
  ],
  date: ["2027-02-29", "2027-04-31", "0000-01-01", "1969-12-31"],
} as const;

const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split("/").pop()!]!) : s);

/** Every path (JSON pointer segments, "0" for an array's first item) to a date-time or date in `schema`. */
function datePaths(schema: Schema, at: string[] = [], seen = new Set<Schema>()): { path: string[]; format: "date-time" | "date" }[] {
  const s = resolve(schema);
  if (seen.has(s)) return [];
  const inner = new Set(seen).add(s);
  if (s.format === "date-time" || s.format === "date") return [{ path: at, format: s.format }];
  return [
    ...Object.entries(s.properties ?? {}).flatMap(([name, p]) => datePaths(p, [...at, name], inner)),
    ...(s.items ? datePaths(s.items, [...at, "0"], inner) : []),
    ...[...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap((x) => datePaths(x, at, inner)),
  ];
}

/** A copy of `body` with `value` at `path` (objects and a one-item array made where missing). */
function withValue(body: unknown, path: string[], value: string): unknown {
  const root = structuredClone(body ?? {}) as Record<string, unknown>;
  let node: Record<string, unknown> = root;
  path.forEach((segment, i) => {
    if (i === path.length - 1) node[segment] = value;
    else {
      node[segment] ??= path[i + 1] === "0" ? [{}] : {};
      node = node[segment] as Record<string, unknown>;
    }
  });
  return root;
}

describe("dates that are not instants", () => {
  let account: TestAccount;
  let operator: TestOperator;
  beforeAll(async () => {
    account = await server().account();
    operator = await server().operator();
  });
  const uuid = "00000000-0000-4000-8000-000000000001";

  it("are 400 validation_failed in every body and query of the document, naming the field", { timeout: 120_000 }, async () => {
    let checked = 0;
    const wrong: string[] = [];
    for (const op of documentOperations(loadDocument())) {
      const item = doc.paths[op.path]![op.method]!;
      const caller = (op.operation["x-key-kinds"] ?? ["account"]).includes("account") ? account : operator;
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "phone" ? "%2B14155550100" : name === "keyId" ? account.keyId : uuid,
      );
      const bodySchema = item.requestBody?.content["application/json"]?.schema;
      const cases = [
        ...(bodySchema ? datePaths(bodySchema).map((d) => ({ ...d, where: "body" as const })) : []),
        ...(item.parameters ?? [])
          .filter((p) => p.in === "query")
          .flatMap((p) => datePaths(p.schema, [p.name]).map((d) => ({ ...d, where: "query" as const }))),
      ];
      for (const { path: at, format, where } of cases) {
        for (const value of NOT_INSTANTS[format]) {
          checked++;
          const res =
            where === "body"
              ? await caller.request(op.method.toUpperCase(), path, withValue(requestExample(op.path, op.method), at, value))
              : await caller.request(op.method.toUpperCase(), `${path}?${new URLSearchParams({ [at[0]!]: value }).toString()}`);
          const what = `${op.operationId} ${where} ${at.join("/")} = ${value}`;
          // A batch's items are judged one by one: the item is refused, in a 200 that says which and why.
          if (res.status === 200 && op.operationId === "Messages_sendBatch") {
            const { results } = (await res.json()) as { results: { index: number; error?: { code: string; detail: string } }[] };
            const first = results.find((r) => r.index === 0);
            if (first?.error?.code !== "validation_failed" || !first.error.detail.includes(`/body/${at.join("/")}`))
              wrong.push(`${what}: item 0 ${JSON.stringify(first)}`);
            continue;
          }
          if (res.status !== 400) {
            wrong.push(`${what}: ${res.status} ${(await res.text()).slice(0, 200)}`);
            continue;
          }
          const problem = await problemOf(res);
          const pointer = `/${where}/${at.join("/")}`;
          if (
            problem.code !== "validation_failed" ||
            !problem.errors?.some((e) => e.path.startsWith(pointer) || pointer.startsWith(e.path))
          )
            wrong.push(`${what}: ${JSON.stringify(problem).slice(0, 300)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // The 8 dates of request bodies the contract names and the queries' since/until at least.
    expect(checked).toBeGreaterThan(60);
  });
});
