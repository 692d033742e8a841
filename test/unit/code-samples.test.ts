// The reference's code samples (scripts/codeSamples.ts, added by `npm run gen`): every operation has a curl
// command and a TypeScript client call, and every TypeScript sample type-checks against the client, so a sample
// that no longer matches the contract (a renamed field, a path gone) fails here, not in a partner's editor.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";

const root = resolve(import.meta.dirname, "../..");
type Sample = { lang: string; label: string; source: string };
const operations = documentOperations(loadDocument()).filter((o) => o.path.startsWith("/api/v1/"));
const samplesOf = (op: (typeof operations)[number]) => (op.operation as { "x-codeSamples"?: Sample[] })["x-codeSamples"] ?? [];

describe("the reference's code samples", () => {
  it("give every operation a curl command and a TypeScript client call, made from its example", () => {
    const missing = operations.filter(
      (op) =>
        samplesOf(op)
          .map((s) => s.label)
          .join(",") !== "curl,TypeScript client",
    );
    expect(missing.map((op) => op.operationId)).toEqual([]);
    const send = operations.find((op) => op.operationId === "Messages_send")!;
    expect(samplesOf(send)[0]!.source).toContain(`-d '{"to":"+14155550123"`);
  });

  it("type-check, every TypeScript one, against the client", () => {
    const dir = mkdtempSync(join(tmpdir(), "code-samples-"));
    try {
      const files = operations.map((op, i) => {
        const file = join(dir, `sample${i}.ts`);
        writeFileSync(file, `${samplesOf(op)[1]!.source}\nvoid data;\nvoid error;\nexport {};\n`);
        return file;
      });
      const program = ts.createProgram(files, {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [join(root, "node_modules/@types")],
        baseUrl: root,
        paths: { "@sms-platform/client": [join(root, "client/http.ts")] },
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (d) =>
            `${d.file ? operations[files.indexOf(d.file.fileName)]?.operationId : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
        );
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
