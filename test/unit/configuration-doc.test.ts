// The configuration reference is generated from the settings table of server/config.ts (npm run gen). These
// checks fail when the committed page is stale, or when code reads an environment variable the table lacks.
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIGURATION_DOC, renderConfigurationDoc } from "../../scripts/configuration-doc.js";
import { SETTINGS } from "../../server/config.js";

const root = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(root, dir, file));
}

describe("docs/CONFIGURATION.md", () => {
  it("is what npm run gen makes from server/config.ts", () => {
    const committed = readFileSync(join(root, CONFIGURATION_DOC), "utf8");
    expect(committed, "docs/CONFIGURATION.md is stale: run npm run gen and commit it").toBe(renderConfigurationDoc());
  });

  it("lists every environment variable that server/ and scripts/ read", () => {
    const declared = new Set(Object.values(SETTINGS).map((s) => s.name));
    const read = new Set<string>();
    for (const file of [...sourceFiles("server"), ...sourceFiles("scripts")]) {
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\])/g))
        read.add(match[1] ?? match[2]!);
    }
    expect(read.size).toBeGreaterThan(0);
    expect([...read].filter((name) => !declared.has(name))).toEqual([]);
  });

  it("has one row per setting, each name declared once", () => {
    const names = Object.values(SETTINGS).map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    const rendered = renderConfigurationDoc();
    for (const name of names) expect(rendered).toContain(`| \`${name}\` |`);
  });
});
