// Every repository path a document or a code comment cites exists: docs and comments that name moved or deleted
// files mislead the next reader. In a document a path is cited in backquotes or as a link target; in code, any
// path with a folder and an extension in a comment. It may be written from the repository's root, from server/
// (as ARCHITECTURE.md and the server's comments do: `db/jobs/claimJobs.ts`), or relative to the file (or, in
// code, to its folder's parent); an import specifier (`../generated/api.js`) names its .ts, and dist/ is what
// the build writes. Migrations are history: their comments name what existed when they were written.
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

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    SKIP.has(e.name) || e.name === "migrations"
      ? []
      : e.isDirectory()
        ? codeFiles(join(dir, e.name))
        : /\.(ts|tsx|mjs|cjs|sh)$/.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
}

/** A path with a folder and an extension, standing alone (not a URL, not part of a longer name). */
const CITED_IN_CODE =
  /(?<![\w./@:-])((?:\.\.?\/)?[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)+\.(?:ts|tsx|mjs|cjs|sh|yml|yaml|sql|json|md|tsp))(?![\w/])/g;

/** The comment on a line of code, if it has one: a line comment, a block comment's line, a shell comment. */
function commentOf(line: string, shell: boolean): string | undefined {
  const t = line.trim();
  if (t.startsWith("//") || t.startsWith("*") || t.startsWith("/*") || (shell && t.startsWith("#"))) return t;
  const at = line.indexOf(" // ");
  return at < 0 ? undefined : line.slice(at);
}

describe("paths cited in code comments", () => {
  it("every one exists", () => {
    const missing: string[] = [];
    for (const dir of ["server", "bench", "scripts", "test", "client", "dashboard/src", "common", ".ci"]) {
      if (!existsSync(join(root, dir))) continue;
      for (const file of codeFiles(join(root, dir))) {
        for (const line of readFileSync(file, "utf8").split("\n")) {
          const comment = commentOf(line, file.endsWith(".sh"));
          if (!comment) continue;
          for (const [, cited] of comment.matchAll(CITED_IN_CODE)) {
            if (cited!.startsWith("dist/")) continue;
            const bases = [root, join(root, "server"), dirname(file), dirname(dirname(file))];
            const forms = [cited!, cited!.replace(/\.js$/, ".ts")];
            if (!bases.some((base) => forms.some((form) => existsSync(join(base, form)))))
              missing.push(`${relative(root, file)} cites ${cited}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

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
