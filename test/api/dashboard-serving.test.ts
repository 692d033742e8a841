// How the server serves the built dashboard: the page for every path under /dashboard (its router decides),
// hashed assets cached for good, a missing asset as a 404 problem, a strict CSP, no key needed, and a clear 503
// when it was never built.
import express from "express";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dashboardDist, dashboardRouter } from "../../server/http/dashboard.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

describe("GET /dashboard", () => {
  it("serves the single page for /dashboard and every path under it, without an API key", async () => {
    const { baseUrl } = server();
    const index = readFileSync(join(dashboardDist, "index.html"), "utf8");
    for (const path of ["/dashboard", "/dashboard/", "/dashboard/messages", "/dashboard/campaigns/0b7c3a53-5a5e-4a54-9a7e-0c3b8a6f6e21"]) {
      const res = await fetch(baseUrl + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      // The built page, told to offer the API key sign-in (outside production, by default).
      expect(await res.text()).toBe(index.replace("</head>", '<meta name="sms-key-sign-in" content="on" /></head>'));
    }
  });

  it("tells the page not to offer the API key sign-in when told so (production's default)", async () => {
    const app = express().use("/dashboard", dashboardRouter(dashboardDist, { keySignIn: false }));
    const http = app.listen(0, "127.0.0.1");
    await new Promise((r) => http.once("listening", r));
    try {
      const res = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/dashboard/`);
      const page = await res.text();
      expect(page).toContain('<meta name="sms-key-sign-in" content="off" />');
      expect(page).not.toContain('content="on"');
    } finally {
      http.close();
    }
  });

  it("serves hashed assets with a long cache life, and a missing asset as a 404 problem", async () => {
    const { baseUrl } = server();
    const assets = readdirSync(join(dashboardDist, "assets"));
    const js = assets.find((a) => a.endsWith(".js"))!;
    const res = await fetch(`${baseUrl}/dashboard/assets/${js}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);

    const missing = await fetch(`${baseUrl}/dashboard/assets/index-missing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await missing.json()) as { status: number }).status).toBe(404);
  });

  it("answers 503 with a page that says how to build it when dashboard/dist is missing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "no-dashboard-"));
    const app = express().use("/dashboard", dashboardRouter(empty));
    const http = app.listen(0, "127.0.0.1");
    await new Promise((r) => http.once("listening", r));
    try {
      const res = await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/dashboard/messages`);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("60");
      expect(await res.text()).toContain("npm run build:dashboard");
    } finally {
      http.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
