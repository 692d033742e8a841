// npm run bench:reference: how soon the API reference at /docs shows its first operation, pre-rendered (the
// page the dashboard's build makes, scripts/renderReference.ts) against the baseline: Redoc rendering the same
// document in the browser, as /docs did before. Both served side by side by the same router (server/http/docs.ts),
// from this process on 127.0.0.1, in Debian's Chromium, alternately, BENCH_ROUNDS times each (default 5).
// Reported per page: first and largest contentful paint (the browser's own figures: the pre-rendered page's
// operations are painted with its HTML), when the test could find the "Create a campaign" operation (after the
// scripts that block the page's main thread, Redoc's parse and hydration), and when the page had loaded;
// medians, and the ratio of the baseline's largest paint over the pre-rendered one's. Figures and what bounds them: bench/NOTES.md.
import express from "express";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { docsRouter, referenceDist } from "../server/http/docs.js";
import { percentile, root, writeResult } from "./lib.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function serve(dist: string): Promise<{ url: string; close: () => void }> {
  const app = express();
  app.get("/openapi.json", (_req, res) => void res.sendFile(join(root, "generated/openapi.json")));
  app.use("/docs", docsRouter(dist));
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs`, close: () => server.close() }),
    );
  });
}

const prerendered = await serve(referenceDist);
const baseline = await serve(join(root, ".scratch/no-prerendered-reference"));
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
const times: Record<
  "prerendered" | "baseline",
  { paint: number[]; largest: number[]; operation: number[]; load: number[]; takenOver: number[] }
> = {
  prerendered: { paint: [], largest: [], operation: [], load: [], takenOver: [] },
  baseline: { paint: [], largest: [], operation: [], load: [], takenOver: [] },
};
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, server] of [
      ["prerendered", prerendered],
      ["baseline", baseline],
    ] as const) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(server.url, { waitUntil: "commit" });
      await page
        .locator("h2", { hasText: /^Create a campaign\s*$/ })
        .first()
        .waitFor({ timeout: 120_000 });
      const operation = Date.now() - t0;
      await page.waitForLoadState("load");
      const load = Date.now() - t0;
      // Redoc's own menu and search work: the pre-rendered page once its bundle has hydrated it (after the load
      // event, in idle time), the baseline once Redoc has drawn it.
      if (name === "prerendered") await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 120_000 });
      const takenOver = Date.now() - t0;
      const paint = await page.evaluate<number>(
        "(performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime",
      );
      // The largest paint: for the pre-rendered page its operations' text, for the baseline Redoc's rendering.
      const largest = await page.evaluate<number>(
        "new Promise((resolve) => new PerformanceObserver((list) => resolve(list.getEntries().at(-1).startTime)).observe({ type: 'largest-contentful-paint', buffered: true }))",
      );
      times[name].largest.push(largest);
      times[name].paint.push(paint);
      times[name].operation.push(operation);
      times[name].load.push(load);
      times[name].takenOver.push(takenOver);
      process.stderr.write(
        `round ${round} ${name}: paint ${Math.round(paint)} ms, largest paint ${Math.round(largest)} ms, operation found ${operation} ms, load ${load} ms, Redoc's menu ${takenOver} ms\n`,
      );
      await context.close();
    }
  }
} finally {
  await browser.close();
  prerendered.close();
  baseline.close();
}
const median = (xs: number[]) =>
  Math.round(
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    ),
  );
const summary = (name: "prerendered" | "baseline") => ({
  firstContentfulPaintMs: median(times[name].paint),
  largestContentfulPaintMs: median(times[name].largest),
  firstOperationMs: median(times[name].operation),
  loadMs: median(times[name].load),
  redocMenuMs: median(times[name].takenOver),
});
writeResult("reference", {
  rounds: ROUNDS,
  prerendered: summary("prerendered"),
  baseline: summary("baseline"),
  largestPaintSpeedup: Number((median(times.baseline.largest) / median(times.prerendered.largest)).toFixed(1)),
});
