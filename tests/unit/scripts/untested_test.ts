/**
 * `deno task untested` (scripts/untested.ts), run on a small tree: which modules it calls untested,
 * and what it does not count as a test's import.
 */
import { dirname, join } from "node:path";
import { assertEquals } from "../../support/assert.ts";

const script = new URL("../../../scripts/untested.ts", import.meta.url).pathname;

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(dirname(join(root, path)), { recursive: true });
    Deno.writeTextFileSync(join(root, path), text);
  }
}

Deno.test("lists the production modules no test file imports a value from", async () => {
  const root = Deno.makeTempDirSync();
  try {
    write(root, {
      "lib/a.ts": "export const a = 1;\n",
      "lib/b.ts": 'import { a } from "./a.ts";\nexport const b = a;\n',
      "lib/types.ts": "export type T = number;\n",
      "lib/lazy.ts": "export const lazy = 1;\n",
      "lib/side.ts": "globalThis.x = 1;\n",
      "lib/beside_test.ts": 'import "./side.ts";\n',
      "static/app/view.ts": "export const view = 1;\n",
      "scripts/tool.ts": "export const tool = 1;\n",
      "tests/support/helper.ts": 'export { b } from "../../lib/b.ts";\n',
      "tests/unit/a_test.ts": 'import { a } from "../../lib/a.ts";\n' +
        'import type { T } from "../../lib/types.ts";\n' +
        'import { type T as U } from "../../lib/types.ts";\n' +
        'const m = await import("../../lib/lazy.ts");\n',
    });
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, `--root=${root}`, "--json"],
      stdout: "piped",
    }).output();
    assertEquals(out.code, 0);
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    // b is reached only through a helper, types only by `import type`: neither is named by a test.
    assertEquals(report, { production: 5, untested: ["lib/b.ts", "lib/types.ts"] });
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
