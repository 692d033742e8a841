import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const generatedDir = resolve(import.meta.dirname, "../../generated");

export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string }>>;
  [key: string]: unknown;
}

/** The generated OpenAPI document: what the validator enforces and what /openapi.json serves. */
export function loadDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(resolve(generatedDir, "openapi.json"), "utf8")) as OpenApiDocument;
}

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Every (method, path, operationId) of the document. */
export function documentOperations(doc: OpenApiDocument): { method: string; path: string; operationId: string }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]?.operationId).map((method) => ({ method, path, operationId: item[method]!.operationId! })),
  );
}

/** `/api/v1/messages/{messageId}` → `/api/v1/messages/:messageId` */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");
