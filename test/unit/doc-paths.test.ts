// Every repository path a document cites exists: docs that name moved or deleted files mislead the next reader.
// A path is cited in backquotes or as a link target; it may be written from the repository's root, from
// server/ (as ARCHITECTURE.md does: `db/jobs/claimJobs.ts`), or relative to the document; an import specifier
// (`../generated/api.js`) names its .ts, and dist/ is what the build writes.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const SKIP = new Set(["node_modules", ".git", "dist", ".data", ".test-data", ".scratch", "results", "generated"]);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    SKIP.has(e.name) ? [] : e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : [],
  );
}

const CITED = /`([A-Za-z0-9_.-]+\/[A-Za-z0-9_./-]*\.(?:ts|tsx|mjs|cjs|js|tsp|sh|yml|yaml|sql|json|md))`|\]\(((?!https?:|#|\/)[^)#\s]+)/g;

describe("paths cited in the documentation", () => {
  it("every one exists", () => {
    const missing: string[] = [];
    for (const doc of markdownFiles(root)) {
      for (const m of readFileSync(doc, "utf8").matchAll(CITED)) {
        const cited = (m[1] ?? m[2])!;
        if (cited.startsWith("dist/")) continue; // what npm run build writes
        const bases = [root, join(root, "server"), dirname(doc)];
        // An import specifier names the .js its .ts compiles to.
        const forms = [cited, cited.replace(/\.js$/, ".ts")];
        if (!bases.some((base) => forms.some((form) => existsSync(join(base, form)))))
          missing.push(`${relative(root, doc)} cites ${cited}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
