// Generated from the OpenAPI document: every query parameter of every operation, sent in a shape the document
// does not define for it (`name[a]=b`, `name[]=b`, `name[0][x]=b`), answers 400 validation_failed, never a 5xx.
import { beforeAll, describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
const doc = loadDocument() as unknown as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
const SHAPES = ["[a]=b", "[]=b", "[0][x]=b", "[__proto__]=b"];

describe("query parameters in shapes the document does not define", () => {
  let account: TestAccount;
  let operator: TestOperator;
  beforeAll(async () => {
    account = await server().account();
    operator = await server().operator();
  });

  it("are 400 validation_failed on every operation", { timeout: 120_000 }, async () => {
    const uuid = "00000000-0000-4000-8000-000000000001";
    const wrong: string[] = [];
    let checked = 0;
    for (const op of documentOperations(loadDocument())) {
      const caller = (op.operation["x-key-kinds"] ?? ["account"]).includes("account") ? account : operator;
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "phone" ? "%2B14155550100" : name === "keyId" ? account.keyId : uuid,
      );
      const names = (doc.paths[op.path]![op.method]!.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      for (const name of names) {
        for (const shape of SHAPES) {
          checked++;
          const res = await caller.request(op.method.toUpperCase(), `${path}?${name}${shape}`);
          const body = await res.text();
          if (res.status !== 400 || !body.includes('"validation_failed"'))
            wrong.push(`${op.operationId} ?${name}${shape}: ${res.status} ${body.slice(0, 200)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });
});
