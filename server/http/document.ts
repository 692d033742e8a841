import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const generatedDir = resolve(import.meta.dirname, "../../generated");

/** An operation as the document has it (the fields the server reads). */
export interface DocumentOperation {
  operationId?: string;
  "x-key-kinds"?: ("account" | "operator")[];
  "x-scope"?: "full" | "send" | "read";
  "x-test-key"?: boolean;
  /** Called with neither a key nor a session (accepting an invitation, signing in). */
  "x-public"?: boolean;
  /** The user roles a session needs besides its scope. */
  "x-roles"?: string[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocumentOperation>>;
  [key: string]: unknown;
}

/** The generated OpenAPI document: what the validator enforces and what /openapi.json serves. */
export function loadDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(resolve(generatedDir, "openapi.json"), "utf8")) as OpenApiDocument;
}

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/**
 * Every (method, path, operationId) of the document, literal paths before templated ones (so an Express
 * route for /numbers/holder comes before /numbers/{numberId}).
 */
export function documentOperations(
  doc: OpenApiDocument,
): { method: string; path: string; operationId: string; operation: DocumentOperation }[] {
  const all = Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]?.operationId).map((method) => ({
      method,
      path,
      operationId: item[method]!.operationId!,
      operation: item[method]!,
    })),
  );
  return all.sort((x, y) => Number(x.path.includes("{")) - Number(y.path.includes("{")));
}
