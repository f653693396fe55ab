/** Launches Debian's headless Chromium through playwright-core for the end-to-end tests. */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM, ensureTools } from "../../scripts/system_deps.ts";

export type { Browser, BrowserContext, Page };

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Starts headless Chromium (installing it first on a fresh machine). */
export async function launchBrowser(): Promise<Browser> {
  await ensureTools([CHROMIUM]);
  return await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ARGS });
}

/** Console lines for answers the client expects and shows to the user (401 at start, 400 forms). */
const EXPECTED = /^Failed to load resource: the server responded with a status of 40[01]\b/;

/** A page that records console errors and uncaught exceptions, so tests can assert there are none. */
export async function newPage(
  context: BrowserContext,
): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !EXPECTED.test(m.text())) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { page, errors };
}

/** Whether the page scrolls sideways (content wider than the viewport). */
export async function hasHorizontalOverflow(page: Page): Promise<boolean> {
  return await page.evaluate(() => document.documentElement.scrollWidth > innerWidth);
}

/** Saves a screenshot under tests/e2e/screenshots/ (git-ignored) for a human to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = new URL("../e2e/screenshots/", import.meta.url).pathname;
  await Deno.mkdir(dir, { recursive: true });
  await page.screenshot({ path: `${dir}${name}.png` });
}
