/**
 * The store is a lower layer that a second backend (PostgreSQL) will sit beside: it imports
 * nothing of IRC or HTTP, so it cannot grow a dependency on how messages arrive or are served.
 */
import { assertEquals } from "../support/assert.ts";

const STORE = new URL("../../store/", import.meta.url);
const FORBIDDEN = /from\s+"(?:\.\.\/)+(irc|http|routes|files|webhook|embed|push)\//;

/** Every TypeScript file under `dir`, as paths relative to the store folder. */
async function sources(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      out.push(...await sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    } else if (entry.name.endsWith(".ts")) out.push(`${prefix}${entry.name}`);
  }
  return out;
}

Deno.test("store/ imports no IRC, HTTP or other upper-layer code", async () => {
  const offending: string[] = [];
  for (const file of await sources(STORE)) {
    const text = await Deno.readTextFile(new URL(file, STORE));
    for (const line of text.split("\n")) {
      const m = FORBIDDEN.exec(line);
      if (m) offending.push(`${file}: ${line.trim()}`);
    }
  }
  assertEquals(offending, []);
});
