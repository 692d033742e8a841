// POST /messages/batch reports each invalid item by its index instead of refusing the whole request, so its
// body is not checked by the request validator (app.ts, validatorOptions): the envelope is checked here, and
// each item against the document's own SendMessageRequest schema, with the same ajv and formats.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { components } from "../../generated/api.js";
import { invalidField } from "../domain/errors.js";
import type { SendRequest } from "../services/acceptMessage.js";
import type { OpenApiDocument } from "./document.js";
import { REQUEST_FORMATS } from "./requestFormats.js";

type BatchItemError = components["schemas"]["BatchItemError"];
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export const MAX_BATCH_ITEMS = 10_000;

/** The item validator of a document, made once. */
export function batchItemValidator(document: OpenApiDocument): (body: unknown) => (SendRequest | BatchItemError)[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv, { mode: "full" });
  for (const [name, format] of Object.entries(REQUEST_FORMATS)) ajv.addFormat(name, format);
  ajv.addSchema({ $id: "openapi", components: document.components });
  let validate: ValidateFunction | undefined;
  return (body) => {
    validate ??= ajv.getSchema("openapi#/components/schemas/SendMessageRequest")!;
    const messages = envelope(body);
    return messages.map((item, index) => (validate!(item) ? (item as SendRequest) : itemError(validate!.errors?.[0], index)));
  };
}

/** `{ messages: [1 to 10,000 items] }` and nothing else, or a 400 for the whole request. */
function envelope(body: unknown): unknown[] {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw invalidField("/body", "must be an object");
  const extra = Object.keys(body).find((k) => k !== "messages");
  if (extra !== undefined) throw invalidField(`/body/${extra}`, "is not a known field");
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) throw invalidField("/body/messages", "must be an array");
  if (messages.length < 1 || messages.length > MAX_BATCH_ITEMS) {
    throw invalidField("/body/messages", `must hold 1 to ${MAX_BATCH_ITEMS.toLocaleString("en")} items`);
  }
  return messages;
}

/** An item's first schema error, said as the request validator says it. */
function itemError(error: ErrorObject | undefined, index: number): BatchItemError {
  const base = `/body/messages/${index}${error?.instancePath ?? ""}`;
  let path = base;
  let message = error?.message ?? "is invalid";
  if (error?.keyword === "required") {
    path = `${base}/${(error.params as { missingProperty: string }).missingProperty}`;
    message = "is required";
  } else if (error?.keyword === "unevaluatedProperties") {
    path = `${base}/${(error.params as { unevaluatedProperty: string }).unevaluatedProperty}`;
    message = "is not a known field";
  }
  return { code: "validation_failed", detail: `The item is invalid: ${path} ${message}.`, path };
}
