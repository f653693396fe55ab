/** Launches Debian's headless Chromium through playwright-core for the end-to-end tests. */
import {
  type Browser,
  type BrowserContext,
  chromium,
  type ConsoleMessage,
  type Locator,
  type Page,
} from "playwright-core";
import { CHROMIUM, ensureTools } from "../../scripts/system_deps.ts";

export type { Browser, BrowserContext, Locator, Page };

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

/**
 * A preview image Parley could not get (the remote answered an error or no image, or too many
 * images were being fetched): the client hides it, but the browser still logs the failed load.
 */
const brokenPreview = (m: ConsoleMessage) =>
  /^Failed to load resource: the server responded with a status of (400|429|502|503)\b/.test(
    m.text(),
  ) &&
  new URL(m.location().url || "about:blank").pathname === "/api/embed/image";

/** A page that records console errors and uncaught exceptions, so tests can assert there are none. */
export async function newPage(
  context: BrowserContext,
): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !EXPECTED.test(m.text()) && !brokenPreview(m)) {
      // Where it came from: a failed load's text does not name what failed.
      const where = m.location().url;
      errors.push(where ? `${m.text()} (${where})` : m.text());
    }
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

/** What `assertOnScreen` found wrong with an element, or "" when it is fine. */
type Placement = string;

/**
 * Asserts that a user can see `locator`'s element without scrolling the page: its box lies inside
 * the viewport and the topmost element at its centre (`document.elementFromPoint`) is the element
 * itself or inside it. Playwright's `isVisible` and `waitFor` count off-screen and covered elements
 * as visible; this does not. Waits up to `timeoutMs` for the screen to settle (drawers slide).
 */
export async function assertOnScreen(
  page: Page,
  locator: Locator,
  timeoutMs = 10_000,
): Promise<void> {
  await locator.first().waitFor({ state: "attached", timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs;
  let problem: Placement = "";
  while (true) {
    problem = await locator.first().evaluate((el): string => {
      const r = el.getBoundingClientRect();
      const desc = `<${el.tagName.toLowerCase()}> "${(el.textContent ?? "").trim().slice(0, 40)}"`;
      if (r.width === 0 || r.height === 0) return `${desc} has no size`;
      const fits = r.left >= -1 && r.top >= -1 && r.right <= innerWidth + 1 &&
        r.bottom <= innerHeight + 1;
      if (!fits) {
        return `${desc} at (${Math.round(r.left)},${Math.round(r.top)})-(${Math.round(r.right)},${
          Math.round(r.bottom)
        }) is outside the ${innerWidth}x${innerHeight} viewport`;
      }
      const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (top && (top === el || el.contains(top))) return "";
      return `${desc} is covered at its centre by <${top?.tagName.toLowerCase()} class="${
        top?.getAttribute("class") ?? ""
      }">`;
    }).catch((e) => String(e));
    if (!problem || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (problem) {
    const v = page.viewportSize();
    throw new Error(`not on screen at ${v?.width}x${v?.height} (${page.url()}): ${problem}`);
  }
}
