// The server and the document agree: every operation of the document has a route, every route is in the
// document (besides the infrastructure endpoints docs/API.md lists), and unknown paths answer problems.
import { describe, expect, it } from "vitest";
import type { Express } from "express";
import { loadConfig } from "../../server/config.js";
import { createApp } from "../../server/http/app.js";
import { handlers } from "../../server/http/routes/index.js";
import { operationAccess } from "../../server/http/access.js";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { operationTable } from "../../server/http/operationTable.js";
import { createLogger } from "../../server/logger.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();
const INFRASTRUCTURE = ["GET /healthz", "GET /metrics", "GET /openapi.json", "GET /openapi.yaml", "GET /readyz"];

function routesOf(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router.stack;
  return stack.flatMap((layer) =>
    layer.route ? Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`) : [],
  );
}

describe("contract", () => {
  it("routes every operation of the document through the one operation table, and nothing else", () => {
    const app = createApp({ db: server().db, log: createLogger("silent"), config: loadConfig({}), now: () => new Date() });
    // Express routes are the infrastructure endpoints alone: the API is dispatched from the operation table.
    expect(routesOf(app).sort()).toEqual(INFRASTRUCTURE);
    const operations = documentOperations(loadDocument()).filter((op) => !op.operationId.startsWith("System_"));
    const table = operationTable(operationAccess(operations));
    for (const op of operations) {
      const path = op.path.replace(/\{(\w+)\}/g, "x");
      expect(table.resolve(op.method.toUpperCase(), path)?.operationId, `${op.method} ${path}`).toBe(op.operationId);
    }
    expect(Object.keys(handlers).sort()).toEqual(operations.map((op) => op.operationId).sort());
  });

  it("documents every operation with a summary, a description and an example, and every schema property", () => {
    const doc = loadDocument() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          { description?: string; summary?: string; responses?: Record<string, unknown>; requestBody?: unknown; parameters?: object[] }
        >
      >;
      components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
    };
    const undocumented: string[] = [];
    for (const op of documentOperations(loadDocument())) {
      const o = doc.paths[op.path]![op.method]!;
      const contents = [...Object.values(o.responses ?? {}), o.requestBody].flatMap((r) =>
        Object.values((r as { content?: object })?.content ?? {}),
      );
      const hasExample =
        contents.some((c) => "example" in c || "examples" in c) || (o.parameters ?? []).some((p: object) => "example" in p);
      if (!o.description) undocumented.push(`${op.operationId}: description`);
      // The summary is the operation's label in the reference's side menu (else Redoc shows the operationId).
      if (!o.summary) undocumented.push(`${op.operationId}: summary`);
      // An operation with no body, no parameter and no content in its success (signing out) has nothing to show.
      const successContents = [
        ...Object.entries(o.responses ?? {})
          .filter(([status]) => status.startsWith("2"))
          .map(([, r]) => r),
        o.requestBody,
      ].flatMap((r) => Object.values((r as { content?: object })?.content ?? {}));
      const nothingToShow = successContents.length === 0 && (o.parameters ?? []).length === 0;
      if (!hasExample && !nothingToShow) undocumented.push(`${op.operationId}: example`);
    }
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      for (const [prop, def] of Object.entries(schema.properties ?? {})) if (!def.description) undocumented.push(`${name}.${prop}`);
    }
    expect(undocumented).toEqual([]);
  });

  it("serves the generated document as JSON and YAML, and the reference page", async () => {
    const { baseUrl } = server();
    const json = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(json.openapi).toBe("3.1.0");
    expect(json.paths["/api/v1/scheduler/schedule"]?.post?.operationId).toBe("Scheduler_schedule");
    const yaml = await (await fetch(`${baseUrl}/openapi.yaml`)).text();
    expect(yaml).toMatch(/^# DO NOT EDIT/);
    const docs = await fetch(`${baseUrl}/docs`);
    expect(docs.status).toBe(200);
    const html = await docs.text();
    // The pre-rendered page loads Redoc's bundle through its hydrate script; the page Redoc draws, directly.
    expect(html).toMatch(/\/docs\/assets\/(redoc\.standalone|hydrate)\.js/);
    const asset = await fetch(`${baseUrl}/docs/assets/redoc.standalone.js`);
    expect(asset.status).toBe(200);
    expect(Number(asset.headers.get("content-length"))).toBeGreaterThan(100_000);
    // Gzipped (about a third of its size), and naming no outside address the page's policy would refuse.
    expect(asset.headers.get("content-encoding")).toBe("gzip");
    expect(Number(asset.headers.get("content-length"))).toBeLessThan(500_000);
    expect(await asset.text()).not.toContain("cdn.redoc.ly");
  });

  it("describes every event we POST in the document's webhooks section, with the schema of its body", () => {
    const doc = loadDocument() as unknown as {
      webhooks: Record<string, { post: { requestBody: { content: { "application/json": { schema: { $ref: string } } } } } }>;
      components: { schemas: { WebhookEventType: { enum: string[] } } };
    };
    const bodyOf = (event: string) => doc.webhooks[event]?.post.requestBody.content["application/json"].schema.$ref;
    expect(Object.keys(doc.webhooks).sort()).toEqual([...doc.components.schemas.WebhookEventType.enum].sort());
    expect(bodyOf("dlr.delivered")).toBe("#/components/schemas/DeliveryReceipt");
    expect(bodyOf("message.received")).toBe("#/components/schemas/MessageReceivedEvent");
    expect(bodyOf("contact.opted_in")).toBe("#/components/schemas/ContactOptEvent");
  });

  it("answers health, readiness and metrics without a key", async () => {
    const { baseUrl } = server();
    expect(await (await fetch(`${baseUrl}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${baseUrl}/readyz`)).json()).toEqual({ status: "ready", database: "up", migrations: "current" });
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
    expect(metrics).toContain("http_request_duration_seconds");
    expect(metrics).toContain('route="/healthz"');
  });
});
