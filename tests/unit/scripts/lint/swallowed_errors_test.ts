/// <reference lib="deno.unstable" />
/**
 * The swallowed-error rule (scripts/lint/swallowed_errors.ts): what it reports, and that the
 * production code keeps it, with `NOT_YET` naming exactly the files that do not yet.
 */
import { join, relative } from "node:path";
import { assertEquals } from "../../../support/assert.ts";
import plugin, {
  NOT_YET,
  notYet,
  production,
  swallowedErrors,
} from "../../../../scripts/lint/swallowed_errors.ts";

const root = new URL("../../../..", import.meta.url).pathname;
const strict = swallowedErrors(production);

/** The lines (1-based) the rule reports in `source`. */
function reported(source: string, file = "lib/example.ts"): number[] {
  return Deno.lint.runPlugin(strict, file, source).map((d) =>
    source.slice(0, d.range[0]).split("\n").length
  );
}

Deno.test("an empty catch is reported unless a why: comment explains it", () => {
  assertEquals(reported("try { f(); } catch { /* already closed */ }\n"), [1]);
  assertEquals(reported("try { f(); } catch (_) {}\n"), [1]);
  assertEquals(reported("try {\n  f();\n} catch {\n  // closed\n}\n"), [3]);
  assertEquals(reported("try { f(); } catch { /* why: already closed */ }\n"), []);
  assertEquals(reported("try {\n  f();\n} catch {\n  // why: closed\n}\n"), []);
  assertEquals(reported("try { f(); } catch (e) { log.debug('lost', { e }); }\n"), []);
  assertEquals(reported("try { f(); } catch { return 0; }\n"), []);
});

Deno.test("a no-op .catch is reported unless a why: comment explains it", () => {
  assertEquals(reported("p.catch(() => {});\n"), [1]);
  assertEquals(reported("p.catch((_e) => {});\n"), [1]);
  assertEquals(reported("const x = await p.catch(() => undefined);\n"), [1]);
  assertEquals(reported("p.catch(function () {});\n"), [1]);
  assertEquals(reported("f()\n  .then(g)\n  .catch(() => {});\n"), [3]);
  assertEquals(reported("// why: nothing was in flight\np.catch(() => {});\n"), []);
  assertEquals(reported("p.catch(() => {}); // why: nothing was in flight\n"), []);
  assertEquals(reported("f()\n  // why: reported by f\n  .catch(() => {});\n"), []);
  assertEquals(reported("// a comment, but no reason marked\np.catch(() => {});\n"), [2]);
  assertEquals(reported("p.catch((err) => log.debug('lost', { err }));\n"), []);
  assertEquals(reported("const n = await p.catch(() => 0);\n"), []);
});

Deno.test("tests and benches are not production code; deno lint skips NOT_YET", () => {
  assertEquals(reported("p.catch(() => {});\n", "tests/unit/x_test.ts"), []);
  assertEquals(production("tests/support/x.ts"), false);
  assertEquals(production("bench/run.ts"), false);
  assertEquals(production("lib/x_test.ts"), false);
  assertEquals(production("static/dist/app.js"), false);
  assertEquals(production("static/app/main.tsx"), true);
  assertEquals(Deno.lint.runPlugin(plugin, "lib/x.ts", "p.catch(() => {});\n").length, 1);
  if (NOT_YET.length) {
    assertEquals(Deno.lint.runPlugin(plugin, NOT_YET[0], "p.catch(() => {});\n"), []);
  }
});

/** Every production source file, relative to the repository. */
async function productionFiles(dir = root): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    const rel = relative(root, path);
    if (e.name.startsWith(".") || !production(rel + (e.isDirectory ? "/" : ""))) continue;
    if (e.isDirectory) out.push(...await productionFiles(path));
    else if (/\.(ts|tsx|js)$/.test(e.name)) out.push(rel);
  }
  return out;
}

Deno.test("production code explains every error it drops; NOT_YET lists exactly the rest", async () => {
  const offenders: Record<string, number> = {};
  for (const file of await productionFiles()) {
    const found = Deno.lint.runPlugin(strict, file, await Deno.readTextFile(join(root, file)));
    if (found.length) offenders[file] = found.length;
  }
  const unlisted = Object.keys(offenders).filter((f) => !notYet(f)).sort();
  // A file cleaned: take it off the list, so that it stays clean.
  const clean = NOT_YET.filter((f) => !(f in offenders));
  assertEquals({ unlisted, clean }, { unlisted: [], clean: [] });
});
