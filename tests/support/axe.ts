/** Runs axe-core (the accessibility rules engine) in a page and returns what it finds wrong. */
import { createRequire } from "node:module";
import type { Page } from "./browser.ts";
// Loads the package so Deno fetches it into its cache, where require finds its browser build.
import "axe-core";

let source: string | undefined;

/** The violations axe-core finds in the page as it is now: rule id, impact and the first nodes. */
export async function axeViolations(page: Page): Promise<string[]> {
  source ??= await Deno.readTextFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"));
  // Evaluated over the DevTools protocol: the page's CSP refuses an inline <script> (addScriptTag).
  if (!await page.evaluate(() => "axe" in globalThis)) await page.evaluate(source);
  const found = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const axe = (globalThis as any).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return r.violations.map((v: any) =>
      `${v.id} (${v.impact}): ${
        // deno-lint-ignore no-explicit-any
        v.nodes.slice(0, 3).map((n: any) => `${n.target.join(" ")} ${n.failureSummary}`).join(
          " | ",
        )}`
    );
  });
  return found as string[];
}
