// The shipped dashboard stays small (under 150 kB gzipped, everything the browser downloads) and needs no inline
// script, so the server's CSP can forbid them. The global setup builds dashboard/dist when its sources changed.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isFresh } from "../../scripts/build-dashboard.js";
import { dashboardDist } from "../../server/http/dashboard.js";

const BUDGET = 150 * 1024;

/** The dashboard's files: not the API reference the same build pre-renders beside it (served at /docs). */
function shipped(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === join(dashboardDist, "reference")) return [];
    if (statSync(path).isDirectory()) return shipped(path);
    return name === "build.json" ? [] : [path];
  });
}

describe("the dashboard bundle", () => {
  it("is a build of the current sources", () => {
    expect(isFresh()).toBe(true);
  });

  it(`is under ${BUDGET / 1024} kB gzipped`, () => {
    const files = shipped(dashboardDist);
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    const sizes = files.map((f) => ({ file: f.slice(dashboardDist.length + 1), gzip: gzipSync(readFileSync(f), { level: 9 }).length }));
    const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
    console.log(
      `dashboard bundle: ${(total / 1024).toFixed(1)} kB gzipped (${sizes.map((s) => `${s.file} ${(s.gzip / 1024).toFixed(1)} kB`).join(", ")})`,
    );
    expect(total).toBeLessThan(BUDGET);
  });

  it("loads its script and styles from files under /dashboard/, nothing inline and nothing from elsewhere", () => {
    const html = readFileSync(join(dashboardDist, "index.html"), "utf8");
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="\/dashboard\/assets\//);
      expect(body!.trim()).toBe("");
    }
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});
