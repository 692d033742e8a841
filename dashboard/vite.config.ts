// Vite build of the dashboard (npm run build:dashboard → dashboard/dist, served by the server at /dashboard).
// Preact through the automatic JSX runtime, no plugin needed; no inline scripts (the server's CSP forbids them).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/dashboard/",
  publicDir: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // A single small entry chunk: no module-preload helper, nothing inline.
    modulePreload: false,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 150,
  },
  server: { proxy: { "/api": "http://127.0.0.1:3000" } },
});
