// Code samples for every operation of the OpenAPI document (`x-codeSamples`, which the reference at /docs
// shows beside each operation): a curl command and a call of the typed client, both made from the
// operation's own example, so they say what the document says and change with it. `npm run gen` adds them;
// test/unit/code-samples.test.ts type-checks every TypeScript sample against the client.

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> };
  "x-public"?: boolean;
  "x-key-kinds"?: string[];
  "x-codeSamples"?: { lang: string; label: string; source: string }[];
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

const exampleOf = (p: { example?: unknown; examples?: Record<string, { value: unknown }> }): unknown =>
  p.example !== undefined ? p.example : p.examples ? Object.values(p.examples)[0]?.value : undefined;

/** The package a project installs the client as (client/package.json). */
export const CLIENT_PACKAGE = "@sms-platform/client";

/** Adds `x-codeSamples` to every operation under /api/v1. */
export function withCodeSamples(document: { paths: Record<string, Record<string, Operation>> }): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith("/api/v1/")) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op["x-codeSamples"] = [
        { lang: "Shell", label: "curl", source: curlSample(path, method, op) },
        { lang: "TypeScript", label: "TypeScript client", source: clientSample(path, method, op) },
      ];
    }
  }
}

function parts(path: string, op: Operation) {
  const params = op.parameters ?? [];
  const pathValues = Object.fromEntries(params.filter((p) => p.in === "path").map((p) => [p.name, exampleOf(p) ?? `<${p.name}>`]));
  const query = Object.fromEntries(params.filter((p) => p.in === "query" && exampleOf(p) !== undefined).map((p) => [p.name, exampleOf(p)]));
  const json = op.requestBody?.content?.["application/json"];
  const body = json ? exampleOf(json) : undefined;
  const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(pathValues[name])));
  return { pathValues, query, body, url };
}

/** A query value as the API reads it: arrays comma-separated. */
const queryValue = (v: unknown) => (Array.isArray(v) ? v.join(",") : String(v));

function curlSample(path: string, method: string, op: Operation): string {
  const { query, body, url } = parts(path, op);
  const qs = new URLSearchParams(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, queryValue(v)]))).toString();
  const key = op["x-key-kinds"]?.includes("operator") && !op["x-key-kinds"].includes("account") ? "$OPERATOR_KEY" : "$KEY";
  const lines = [`curl -s -X ${method.toUpperCase()} "$API${url}${qs ? `?${qs}` : ""}"`];
  if (!op["x-public"]) lines.push(`  -H "Authorization: Bearer ${key}"`);
  if (body !== undefined) {
    lines.push(`  -H "Content-Type: application/json"`);
    lines.push(`  -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  }
  return `# API=https://sms.example.com (or http://localhost:3000); ${key.slice(1)} an API key\n${lines.join(" \\\n")}`;
}

function clientSample(path: string, method: string, op: Operation): string {
  const { pathValues, query, body } = parts(path, op);
  const params: string[] = [];
  if (Object.keys(pathValues).length > 0) params.push(`path: ${JSON.stringify(pathValues)}`);
  if (Object.keys(query).length > 0) params.push(`query: ${JSON.stringify(query)}`);
  const options: string[] = [];
  if (params.length > 0) options.push(`params: { ${params.join(", ")} }`);
  if (body !== undefined) options.push(`body: ${JSON.stringify(body, null, 2).replace(/\n/g, "\n  ")}`);
  const call = `await client.${method.toUpperCase()}("${path}"${options.length > 0 ? `, {\n  ${options.join(",\n  ")},\n}` : ""})`;
  return [
    `import { createSmsClient } from "${CLIENT_PACKAGE}";`,
    "",
    // (The variable's name spliced in: this script reads no environment variable of its own.)
    `const client = createSmsClient({ baseUrl: "https://sms.example.com", apiKey: process.env.${"SMS_API_KEY"}! });`,
    `const { data, error } = ${call};`,
  ].join("\n");
}
