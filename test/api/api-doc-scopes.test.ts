// docs/API.md's table of the scope each account operation needs is the OpenAPI document's `x-scope`, row for row.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";

describe("docs/API.md scopes table", () => {
  it("lists every account operation with the scope its x-scope names", () => {
    const doc = readFileSync(resolve(import.meta.dirname, "../../docs/API.md"), "utf8");
    const table = doc.slice(doc.indexOf("<!-- scopes:start -->"), doc.indexOf("<!-- scopes:end -->"));
    const documented = [...table.matchAll(/^\| `(\w+)` \| `(\w+) ([^`]+)` \| `(\w+)` \|$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`);
    // Public operations (`x-public`: accepting an invitation, signing in) need no key, so no scope.
    const expected = documentOperations(loadDocument())
      .filter(
        (op) =>
          op.path.startsWith("/api/v1/") && !op.operation["x-public"] && (op.operation["x-key-kinds"] ?? ["account"]).includes("account"),
      )
      .map((op) => `${op.operationId} ${op.method.toUpperCase()} ${op.path} ${op.operation["x-scope"]}`);
    expect(documented.sort()).toEqual(expected.sort());
    for (const op of documentOperations(loadDocument()).filter(
      (o) => (o.operation["x-key-kinds"] ?? ["account"]).includes("account") && o.path.startsWith("/api/v1/") && !o.operation["x-public"],
    )) {
      expect(["full", "send", "read"], op.operationId).toContain(op.operation["x-scope"]);
    }
  });
});
