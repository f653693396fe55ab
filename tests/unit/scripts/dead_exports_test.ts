/**
 * The dead-export checker (scripts/dead_exports.ts), run on a small tree: what it reports, what a
 * test seam tag, the allow-list and `SURPLUS_NOT_YET` let through, and that the real tree passes
 * it, with `SURPLUS_NOT_YET` naming exactly the files that still export what only they use.
 */
import { dirname, join } from "node:path";
import { assertEquals } from "../../support/assert.ts";
import { SURPLUS_NOT_YET } from "../../../scripts/dead_exports.ts";

const script = new URL("../../../scripts/dead_exports.ts", import.meta.url).pathname;

async function run(root: string, ...flags: string[]): Promise<{ code: number; lines: string[] }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, `--root=${root}`, ...flags],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(out.stderr).split("\n").filter((l) => /^\S+:\d* /.test(l));
  return { code: out.code, lines };
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(dirname(join(root, path)), { recursive: true });
    Deno.writeTextFileSync(join(root, path), text);
  }
}

const tree = {
  "lib/a.ts": [
    "export const used = 1;",
    "export function unused(): number { return local; }",
    "export const local = 2;",
    "export function testOnly(): number { return used; }",
    "/** A seam. @internal test seam */",
    "export function seam(): number { return 3; }",
    "export type Kind = 'a';",
  ].join("\n"),
  "lib/b.ts": 'import { used } from "./a.ts";\nimport type { Kind } from "./a.ts";\n' +
    "export const b: Kind = used ? 'a' : 'a';\n",
  "main.ts": 'import { b } from "./lib/b.ts";\nconsole.log(b);\n',
  "tests/a_test.ts": 'import { seam, testOnly } from "../lib/a.ts";\nseam(); testOnly();\n',
  "scripts/dead_exports_allow.txt": "# nothing yet\n",
};

Deno.test("unused and test-only exports are reported; used ones and tagged seams are not", async () => {
  const root = Deno.makeTempDirSync();
  try {
    write(root, tree);
    const { code, lines } = await run(root);
    assertEquals(code, 1);
    assertEquals(
      lines.sort(),
      [
        "lib/a.ts:2 unused: unused",
        "lib/a.ts:3 local: used only in its file",
        "lib/a.ts:4 testOnly: used only by tests",
      ].sort(),
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("the allow-list lets findings through, and names lines no longer needed", async () => {
  const root = Deno.makeTempDirSync();
  try {
    write(root, tree);
    write(root, {
      "scripts/dead_exports_allow.txt": [
        "# why each stays",
        "lib/a.ts#unused  # kept for a reason",
        "lib/a.ts#local",
        "lib/a.ts#testOnly",
      ].join("\n"),
    });
    assertEquals((await run(root)).code, 0);
    write(root, { "main.ts": 'import { unused } from "./lib/a.ts";\nunused();\n' });
    const { code, lines } = await run(root);
    assertEquals(code, 1);
    // main.ts no longer imports b: now b is dead, and `unused` no longer needs its line.
    assertEquals(lines, [
      "lib/b.ts:3 b: unused",
      "scripts/dead_exports_allow.txt: lib/a.ts#unused is not dead now (used, or gone); drop it",
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("the project itself has no dead exports beyond its allow-list", async () => {
  const { code, lines } = await run(new URL("../../..", import.meta.url).pathname);
  assertEquals(lines, []);
  assertEquals(code, 0);
});

Deno.test("SURPLUS_NOT_YET files keep their surplus exports out of the check, not out of --all", async () => {
  if (!SURPLUS_NOT_YET.length) return;
  const root = Deno.makeTempDirSync();
  try {
    const listed = SURPLUS_NOT_YET[0];
    write(root, {
      ...tree,
      [listed]: "export const mine = 1;\nconsole.log(mine);\n",
      "scripts/dead_exports_allow.txt": "lib/a.ts#unused\nlib/a.ts#local\nlib/a.ts#testOnly\n",
    });
    assertEquals(await run(root), { code: 0, lines: [] });
    assertEquals(await run(root, "--all"), {
      code: 1,
      lines: [`${listed}:1 mine: used only in its file`],
    });
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("no module exports what only it uses; SURPLUS_NOT_YET lists exactly the rest", async () => {
  const { lines } = await run(new URL("../../..", import.meta.url).pathname, "--all");
  const surplus = new Set(
    lines.filter((l) => l.endsWith(": used only in its file")).map((l) => l.split(":")[0]),
  );
  assertEquals([...surplus].sort(), [...SURPLUS_NOT_YET].sort());
});
