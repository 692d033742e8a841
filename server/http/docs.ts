// The API reference at /docs. The page pre-rendered with the dashboard's build (scripts/renderReference.ts)
// shows every operation with its HTML, and Redoc's bundle hydrates it once the page has loaded; without that
// build, Redoc renders /openapi.json in the browser, as before, which takes seconds on a document this size.
import express, { type Request, type Router } from "express";
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { dashboardDist } from "./dashboard.js";

const require = createRequire(import.meta.url);
const redocBundles = dirname(require.resolve("redoc/bundles/redoc.standalone.js"));
/** Redoc's options, the same for the pre-rendering (scripts/renderReference.ts) and in the browser. */
export const REDOC_OPTIONS = { hideDownloadButton: false, expandResponses: "200,201", jsonSampleExpandLevel: 3 };

/** Where the dashboard's build puts the pre-rendered reference. */
export const referenceDist = join(dashboardDist, "reference");

/** The reference's HTML page: `head` after its title (styles, scripts), `body` inside it. */
export const referencePage = (head: string, body: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>SMS Platform API reference</title>
  <style>body { margin: 0; } [data-section-id] { content-visibility: auto; contain-intrinsic-size: auto 900px; }</style>
  ${head}
</head>
<body>
  ${body}
</body>
</html>
`;

/** Without the pre-rendered page: Redoc renders the document in the browser. */
const page = referencePage(
  "",
  `<div id="redoc"></div>
  <script src="/docs/assets/redoc.standalone.js"></script>
  <script src="/docs/assets/init.js"></script>`,
);

const options = JSON.stringify(REDOC_OPTIONS);
const init = `Redoc.init("/openapi.json", ${options}, document.getElementById("redoc"));`;
/**
 * Takes over the pre-rendered page once it has loaded and the browser is idle: Redoc's bundle (1 MB of script)
 * and its hydration (one long task of about two seconds on a document this size) run after the page is on
 * screen and scrolls, not before its load event, so reading starts with the HTML. Its state is the JSON element
 * the rendering left beside it; `data-hydrated` on the page's root says Redoc has taken it over.
 */
const hydrate = `addEventListener("load", () => {
  const start = () => {
    const bundle = document.createElement("script");
    bundle.src = "/docs/assets/redoc.standalone.js";
    bundle.onload = () => {
      Redoc.hydrate(JSON.parse(document.getElementById("redoc-state").textContent), document.getElementById("redoc"));
      document.documentElement.dataset.hydrated = "true";
    };
    document.head.append(bundle);
  };
  if ("requestIdleCallback" in window) requestIdleCallback(start, { timeout: 2000 });
  else setTimeout(start, 0);
});`;

const acceptsGzip = (req: Request) => /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));

/**
 * Redoc's bundle as served: its one outside address (a logo under the menu, from cdn.redoc.ly, which the page's
 * Content-Security-Policy refuses and the console then reports) replaced by an empty image, and gzipped once
 * (about 1 MB to 300 kB: the reference is usable sooner over a slow or busy link).
 */
let bundle: { raw: Buffer; gzipped: Buffer } | undefined;
function redocBundle() {
  if (bundle) return bundle;
  const source = readFileSync(join(redocBundles, "redoc.standalone.js"), "utf8").replaceAll(
    "https://cdn.redoc.ly/redoc/logo-mini.svg",
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E",
  );
  const raw = Buffer.from(source);
  return (bundle = { raw, gzipped: gzipSync(raw, { level: 9 }) });
}

/** The API reference at /docs, every asset served from this server. */
export function docsRouter(dist = referenceDist): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader(
      "Content-Security-Policy",
      "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:",
    );
    next();
  });
  router.get("/", (req, res) => {
    // Looked for on each request: a build that finishes after the server started is served from then on.
    const rendered = join(dist, "index.html");
    if (!existsSync(rendered)) return void res.type("html").send(page);
    res.setHeader("Vary", "Accept-Encoding");
    res.setHeader("Cache-Control", "no-cache");
    if (acceptsGzip(req) && existsSync(`${rendered}.gz`)) {
      res.setHeader("Content-Encoding", "gzip");
      return void res.type("html").sendFile(`${rendered}.gz`);
    }
    res.type("html").sendFile(rendered);
  });
  router.get("/assets/init.js", (_req, res) => void res.type("js").send(init));
  router.get("/assets/hydrate.js", (_req, res) => void res.type("js").send(hydrate));
  router.get("/assets/redoc.standalone.js", (req, res) => {
    const { raw, gzipped } = redocBundle();
    res.setHeader("Vary", "Accept-Encoding");
    res.setHeader("Cache-Control", "public, max-age=86400, immutable");
    res.type("js");
    if (!acceptsGzip(req)) return void res.send(raw);
    res.setHeader("Content-Encoding", "gzip");
    res.send(gzipped);
  });
  router.use("/assets", express.static(redocBundles, { immutable: true, maxAge: "1d" }));
  return router;
}
