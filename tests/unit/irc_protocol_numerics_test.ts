/**
 * Numerics by name (irc/protocol/numerics.ts): the table is well formed, and the code of irc/ and
 * bouncer/ names numerics instead of writing their digits.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as numerics from "../../irc/protocol/numerics.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A string literal of three digits, or of several separated by spaces ("311 312"). */
const DIGITS = /(["'`])\d{3}(?: \d{3})*\1/;

async function* modules(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* modules(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("numerics: three digits each, one name per numeric", () => {
  const byCode = new Map<string, string>();
  for (const [name, code] of Object.entries(numerics)) {
    assert(/^(?:RPL|ERR)_[A-Z0-9]+$/.test(name), name);
    assert(/^\d{3}$/.test(code), `${name} = ${code}`);
    assert(!byCode.has(code), `${code} is both ${byCode.get(code)} and ${name}`);
    byCode.set(code, name);
  }
  assertEquals(numerics.RPL_WELCOME, "001");
  assertEquals(numerics.ERR_NOSUCHNICK, "401");
});

Deno.test("numerics: irc/ and bouncer/ name them, never write their digits", async () => {
  const digits: string[] = [];
  for (const dir of ["irc", "bouncer"]) {
    for await (const path of modules(join(ROOT, dir))) {
      const module = relative(ROOT, path);
      if (module === "irc/protocol/numerics.ts") continue;
      const lines = (await Deno.readTextFile(path)).split("\n");
      const found = lines.flatMap((l, i) =>
        DIGITS.test(l) && !/^\s*(?:\/\/|\*|\/\*)/.test(l) ? [`${module}:${i + 1}: ${l.trim()}`] : []
      );
      digits.push(...found);
    }
  }
  assertEquals(digits, []);
});
