/** lib/remove.ts: a leftover already gone is fine; one that stays is named in the log. */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { removeLeftover } from "../../../lib/remove.ts";

/** Runs `fn` with console.error captured. */
async function stderrOf(fn: () => Promise<void>): Promise<string[]> {
  const err: string[] = [];
  const error0 = console.error;
  console.error = (...a: unknown[]) => void err.push(a.join(" "));
  try {
    await fn();
  } finally {
    console.error = error0;
  }
  return err;
}

Deno.test("removeLeftover removes, and says nothing of a path already gone", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "a"), "x");
  assertEquals(await stderrOf(() => removeLeftover(dir, { recursive: true })), []);
  assertEquals(await Deno.stat(dir).catch((e) => e instanceof Deno.errors.NotFound), true);
  assertEquals(await stderrOf(() => removeLeftover(dir, { recursive: true })), []);
});

Deno.test("removeLeftover logs what it could not remove, and does not throw", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "a"), "x");
    // A folder that is not empty, removed without `recursive`, stays.
    const err = await stderrOf(() => removeLeftover(dir));
    assertEquals(err.length, 1);
    assertStringIncludes(err[0], "WARN");
    assertStringIncludes(err[0], dir);
    assert((await Deno.stat(dir)).isDirectory);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
