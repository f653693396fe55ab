/**
 * BouncerServ speaks from the dictionaries: every text its modules look up (t("..."), and each
 * command's usage and description) is in en.json, so every language's dictionary has it too
 * (i18n_test.ts checks those against en.json).
 */
import { assert } from "../support/assert.ts";
import { loadDictionaries } from "../../routes/i18n.ts";
import "../../bouncer/service/mod.ts"; // its groups' modules fill the table
import { SERVICE_COMMANDS } from "../../bouncer/service/table.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Every literal BouncerServ's modules pass to t(). */
export async function serviceTexts(): Promise<Set<string>> {
  const found = new Set<string>();
  for await (const e of Deno.readDir(`${ROOT}bouncer/service`)) {
    if (!e.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(`${ROOT}bouncer/service/${e.name}`);
    for (const m of text.matchAll(/\bt\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g)) {
      found.add(m[1].startsWith("'") ? m[1].slice(1, -1).replace(/\\'/g, "'") : JSON.parse(m[1]));
    }
  }
  for (const c of SERVICE_COMMANDS) {
    found.add(c.description);
    if (c.usage) found.add(c.usage);
  }
  return found;
}

Deno.test("bouncerserv: every text it says is in en.json", async () => {
  const { dictionaries } = await loadDictionaries(`${ROOT}i18n`);
  const en = dictionaries.get("en")!;
  const texts = await serviceTexts();
  assert(texts.size > 60, `the scanner finds the service's texts (${texts.size})`);
  const missing = [...texts].filter((x) => !(x in en));
  assert(!missing.length, `not in en.json:\n${missing.join("\n")}`);
});
