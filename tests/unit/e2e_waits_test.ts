/**
 * No browser test waits through `waitForFunction` on an async predicate: Playwright takes the
 * promise it returns for a truthy value and stops waiting at once, so the wait holds nothing back
 * (a test then runs ahead of what it meant to wait for, and fails only when the machine is slow).
 * `untilApi` in tests/support/chat_page.ts waits on the API instead.
 */
import { assertEquals } from "../support/assert.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const DIRS = ["tests/e2e", "tests/support"].map((d) =>
  fileURLToPath(new URL(`../../${d}/`, import.meta.url))
);
const ASYNC_WAIT = /waitForFunction\(\s*async\b/g;

Deno.test("browser tests wait on no async predicate through waitForFunction", async () => {
  const found: string[] = [];
  for (const dir of DIRS) {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
      const text = await Deno.readTextFile(join(dir, entry.name));
      for (const m of text.matchAll(ASYNC_WAIT)) {
        found.push(`${entry.name}:${text.slice(0, m.index).split("\n").length}`);
      }
    }
  }
  assertEquals(found, []);
});
