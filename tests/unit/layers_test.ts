/**
 * The lower layers know nothing of HTTP: no module of irc/, files/, webhook/, embed/ or push/
 * imports http/, routes/ or app.ts. They throw lib/errors.ts's DomainErrors; the edge maps them.
 */
import { assertEquals } from "../support/assert.ts";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LOWER = ["irc", "files", "webhook", "embed", "push"];
const HTTP_IMPORT = /from\s+["'](?:\.\.\/)+(?:http\/|routes\/|app\.ts)/;

async function* modules(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* modules(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("irc/, files/, webhook/, embed/ and push/ import nothing of the HTTP layer", async () => {
  const leaks: string[] = [];
  for (const layer of LOWER) {
    for await (const path of modules(join(ROOT, layer))) {
      const name = relative(ROOT, path);
      if (HTTP_IMPORT.test(await Deno.readTextFile(path))) leaks.push(name);
    }
  }
  assertEquals(leaks, []);
});
