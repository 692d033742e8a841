// The document's examples, with their dates moved to the test's own clock. The examples are written as of
// EXAMPLES_WRITTEN_AT (the reference says so, docs/API.md "Dates in examples"): a `scheduledAt` of the next
// morning, an expiry some months ahead, a `since` three weeks back. A test that sends them as they are would
// pass until that day and fail ever after (a `scheduledAt` must be later than the request and at most 365 days
// ahead), so every test that sends an example sends it moved: each date keeps its distance from "now".
import { loadDocument } from "../../server/http/document.js";

/** The instant the document's examples are written as of (the `createdAt` of its example resources). */
export const EXAMPLES_WRITTEN_AT = Date.parse("2026-11-22T10:00:00.000Z");

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `value` with every date-time and date string in it moved by now - EXAMPLES_WRITTEN_AT. */
export function movedToNow<T>(value: T, now: number = Date.now()): T {
  const shift = now - EXAMPLES_WRITTEN_AT;
  const move = (v: unknown): unknown => {
    if (typeof v === "string" && DATE_TIME.test(v)) return new Date(Date.parse(v) + shift).toISOString();
    if (typeof v === "string" && DATE.test(v)) return new Date(Date.parse(`${v}T00:00:00Z`) + shift).toISOString().slice(0, 10);
    if (Array.isArray(v)) return v.map(move);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, move(x)]));
    return v;
  };
  return move(value) as T;
}

interface ExampleOperation {
  parameters?: { name: string; in: string; example?: unknown; examples?: Record<string, { value: unknown }> }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
}
const document = loadDocument() as unknown as { paths: Record<string, Record<string, ExampleOperation>> };

/** The operation's JSON request example, its dates moved to now (undefined when it has none). */
export function requestExample(path: string, method: string, now?: number): unknown {
  const example = document.paths[path]?.[method]?.requestBody?.content["application/json"]?.example;
  return example === undefined ? undefined : movedToNow(example, now);
}

/** The operation's query parameter examples, their dates moved to now. */
export function queryExample(path: string, method: string, now?: number): Record<string, unknown> {
  const params = (document.paths[path]?.[method]?.parameters ?? []).filter((p) => p.in === "query");
  const values = params.flatMap((p) => {
    const value = p.example !== undefined ? p.example : p.examples ? Object.values(p.examples)[0]?.value : undefined;
    return value === undefined ? [] : [[p.name, value] as const];
  });
  return movedToNow(Object.fromEntries(values), now);
}
