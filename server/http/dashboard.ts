import express, { type Router } from "express";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** Where `npm run build:dashboard` (and `npm start`'s prestart) puts the built dashboard. */
export const dashboardDist = resolve(import.meta.dirname, "../../dashboard/dist");

// The dashboard's own files only: no inline script or style element, no other origin.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const notBuilt = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dashboard not built</title></head>
<body>
  <h1>The dashboard has not been built</h1>
  <p>Build it with <code>npm run build:dashboard</code> (<code>npm start</code> does it by itself), then reload this page.
  The API is up: see <a href="/docs">/docs</a>.</p>
</body>
</html>`;

/**
 * The dashboard at /dashboard: the Vite build in dashboard/dist. Hashed assets are cached for a year; every
 * other path under /dashboard is the single page (its router decides what to show), told by a meta tag whether
 * to offer the API key sign-in (`keySignIn`: DASHBOARD_KEY_SIGN_IN). Without a build: 503.
 */
export function dashboardRouter(dist = dashboardDist, opts: { keySignIn: boolean } = { keySignIn: true }): Router {
  const meta = `<meta name="sms-key-sign-in" content="${opts.keySignIn ? "on" : "off"}" />`;
  // Read once per build: the page is small, and a rebuild (npm run build:dashboard) changes its mtime.
  let page: { mtimeMs: number; html: string } | undefined;
  const pageOf = (index: string) => {
    const mtimeMs = statSync(index).mtimeMs;
    if (page?.mtimeMs !== mtimeMs) page = { mtimeMs, html: readFileSync(index, "utf8").replace("</head>", `${meta}</head>`) };
    return page.html;
  };
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader("Content-Security-Policy", CSP);
    next();
  });
  router.use("/assets", express.static(join(dist, "assets"), { immutable: true, maxAge: "365d", index: false, fallthrough: true }));
  // A missing asset is a 404 (the app's not-found problem), never the page.
  router.use("/assets", (_req, _res, next) => next("router"));
  router.get("/{*path}", (_req, res) => {
    const index = join(dist, "index.html");
    if (!existsSync(index)) {
      res.status(503).setHeader("Retry-After", "60");
      return void res.type("html").send(notBuilt);
    }
    res.setHeader("Cache-Control", "no-cache");
    res.type("html").send(pageOf(index));
  });
  return router;
}
