// A real browser for the dashboard tests: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by
// playwright-core, headless, with a fresh profile. Playwright never downloads a browser here.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { systemPackagePresent } from "./systemPackage.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** False (with a notice) when Chromium is absent; the browser test files skip then, and fail under CI=true. */
export const browserAvailable = systemPackagePresent({
  neededBy: "the dashboard browser tests",
  file: CHROMIUM,
  debianPackage: "chromium",
});
const resultsDir = resolve(import.meta.dirname, "../../test-results");

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export interface TestBrowser {
  /** A new page in a new context (its own storage); console errors and failed requests are collected. */
  newPage: (options?: BrowserContextOptions) => Promise<Page & { problems: string[] }>;
}

export function useBrowser(): () => TestBrowser {
  let browser: Browser | undefined;
  let current: TestBrowser | undefined;
  beforeAll(async () => {
    if (!browserAvailable) return;
    // launch() runs Chromium on a fresh temporary profile of its own, removed when it closes.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
    current = {
      newPage: async (options = {}) => {
        const context = await browser!.newContext(options);
        context.setDefaultTimeout(15_000);
        const page = (await context.newPage()) as Page & { problems: string[] };
        page.problems = [];
        page.on("console", (m) => {
          if (m.type() === "error") page.problems.push(`console: ${m.text()}`);
        });
        page.on("pageerror", (e) => page.problems.push(`page error: ${e.message}`));
        return page;
      },
    };
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!current) throw new Error("browser not started");
    return current;
  };
}

/**
 * The page's problems but the console errors of responses with the given statuses: Chromium logs every 4xx
 * answer as a console error, and these are the ones a test provokes on purpose.
 */
export const unexpectedProblems = (problems: string[], ...statuses: number[]) =>
  problems.filter((p) => !statuses.some((s) => p.includes(`status of ${s}`)));

/** Saves a screenshot (the full page unless told otherwise) as test-results/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<string> {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

/** Opens the sign-in screen's "Sign in with an API key" part (development; people sign in with a password). */
export async function openKeySignIn(page: Page): Promise<void> {
  await page.getByText("Sign in with an API key (development)").click();
  await page.getByLabel("API key").waitFor();
}

/**
 * axe-core's WCAG 2.1 A/AA checks of the page as it is once its requests have settled: one line per violation,
 * with the elements it concerns, prefixed by `name` (the tests expect none).
 */
export async function audit(page: Page, name: string): Promise<string[]> {
  await page.waitForLoadState("networkidle");
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return violations.map((v) => `${name}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * Opens a page's creation form: presses its button in the toolbar ("New campaign", the dashboard's FormToggle)
 * and waits until the button says it is expanded and the panel it controls is shown.
 */
export async function openForm(page: Page, name: string): Promise<void> {
  await page.getByRole("button", { name, exact: true, expanded: false }).click();
  const button = page.getByRole("button", { name, exact: true, expanded: true });
  await page.locator(`[id="${await button.getAttribute("aria-controls")}"]`).waitFor();
}

/** A page of Settings, through the main navigation's Settings link and then Settings' own navigation. */
export async function openSettings(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings", exact: true }).click();
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name, exact: true }).click();
}

/** Opens the dashboard and signs in with `key` by typing it and pressing Enter. */
export async function signIn(page: Page, baseUrl: string, key: string, path = "/dashboard/"): Promise<void> {
  await page.goto(baseUrl + path);
  await openKeySignIn(page);
  await page.getByLabel("API key").fill(key);
  await page.getByLabel("API key").press("Enter");
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}
