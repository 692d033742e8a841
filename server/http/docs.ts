import express, { type Router } from "express";
import { createRequire } from "node:module";
import { dirname } from "node:path";

const require = createRequire(import.meta.url);
const redocBundles = dirname(require.resolve("redoc/bundles/redoc.standalone.js"));

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>SMS Platform API reference</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="redoc"></div>
  <script src="/docs/assets/redoc.standalone.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

const init = `Redoc.init("/openapi.json", { hideDownloadButton: false, expandResponses: "200,201", jsonSampleExpandLevel: 3 }, document.getElementById("redoc"));`;

/** The API reference at /docs: Redoc rendering /openapi.json, every asset served from this server. */
export function docsRouter(): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader(
      "Content-Security-Policy",
      "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:",
    );
    next();
  });
  router.get("/", (_req, res) => void res.type("html").send(page));
  router.get("/assets/init.js", (_req, res) => void res.type("js").send(init));
  router.use("/assets", express.static(redocBundles, { immutable: true, maxAge: "1d" }));
  return router;
}
