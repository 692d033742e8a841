// What the README and FEATURES say is built is held to the published document: a "Not built yet" line names no
// capability the document has an operation for (both once said carrier routing and reporting were not built,
// long after they were), and FEATURES names every tag of the document.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDocument } from "../../server/http/document.js";

const root = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(resolve(root, path), "utf8");
const tags = (loadDocument() as unknown as { tags: { name: string }[]; paths: Record<string, Record<string, { tags?: string[] }>> }).tags
  .map((t) => t.name)
  .filter((t) => t !== "System" && t !== "Delivery receipts");

/** The words a tag is known by in prose: "Operator: routing" → routing, "Opt-outs" → opt-outs. */
const wordsOf = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/^operator: /, "")
    .split(/\s+/)
    .map((w) => w.replace(/s$/, ""));

describe("what the docs say is built", () => {
  for (const file of ["README.md", "docs/FEATURES.md"]) {
    it(`${file}: its "Not built yet" names nothing the document has operations for`, () => {
      const line = /^Not built yet: (.*)$/m.exec(read(file))?.[1] ?? "";
      const claims = line.toLowerCase();
      for (const tag of tags) {
        const words = wordsOf(tag);
        expect(
          words.every((w) => claims.includes(w)),
          `${file} says "${line}" though the document has ${tag}`,
        ).toBe(false);
      }
      // Spelled out: the two claims found stale.
      expect(claims).not.toMatch(/carrier routing|reporting/);
    });
  }

  it("README.md is a front page: at most 150 lines", () => {
    expect(read("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(150);
  });

  it("docs/FEATURES.md names every capability (tag) of the document", () => {
    const features = read("docs/FEATURES.md").toLowerCase();
    for (const tag of tags)
      expect(
        wordsOf(tag).some((w) => features.includes(w)),
        tag,
      ).toBe(true);
  });
});
