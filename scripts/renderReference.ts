// The API reference pre-rendered (scripts/build-dashboard.ts calls it with the dashboard's build): Redoc renders
// the OpenAPI document to HTML and CSS here, once per document, so /docs shows every operation as soon as the
// page's HTML arrives; the Redoc bundle then hydrates it (search, the menu, samples' tabs) once the page has
// loaded, without blocking the reading (server/http/docs.ts, `hydrate`). Rendered on the client instead, the
// same page took seconds of script before the first operation showed (bench/NOTES.md, "The reference page").
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { REDOC_OPTIONS, referencePage } from "../server/http/docs.js";

const require = createRequire(import.meta.url);

/** `<` and the line separators escaped: the state is read back from a JSON script element. */
const scriptSafe = (json: string) =>
  json
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** Renders `specPath` into `outDir`/index.html (and its gzip, served to browsers that take it). */
export async function renderReference(specPath: string, outDir: string): Promise<{ bytes: number }> {
  const { createStore, Redoc } = require("redoc") as {
    createStore: (spec: unknown, url: string, options: unknown) => Promise<{ toJS(): Promise<unknown> }>;
    Redoc: unknown;
  };
  const { createElement } = require("react") as { createElement: (type: unknown, props: unknown) => unknown };
  const { renderToString } = require("react-dom/server") as { renderToString: (element: unknown) => string };
  const { ServerStyleSheet } = require("styled-components") as {
    ServerStyleSheet: new () => { collectStyles(element: unknown): unknown; getStyleTags(): string; seal(): void };
  };
  const spec = JSON.parse(readFileSync(specPath, "utf8")) as unknown;
  const store = await createStore(spec, "/openapi.json", REDOC_OPTIONS);
  const sheet = new ServerStyleSheet();
  let body: string;
  let styles: string;
  try {
    body = renderToString(sheet.collectStyles(createElement(Redoc, { store })));
    styles = sheet.getStyleTags();
  } finally {
    sheet.seal();
  }
  const state = scriptSafe(JSON.stringify(await store.toJS()));
  const page = referencePage(
    `${styles}
  <script src="/docs/assets/hydrate.js" defer></script>`,
    `<div id="redoc">${body}</div>
  <script type="application/json" id="redoc-state">${state}</script>`,
  );
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "index.html"), page);
  writeFileSync(join(outDir, "index.html.gz"), gzipSync(page, { level: 9 }));
  return { bytes: Buffer.byteLength(page) };
}
