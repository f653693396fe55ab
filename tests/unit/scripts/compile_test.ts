/**
 * `deno task compile` runs the binary it built: one that does not answer as Parley (the `deno`
 * command line given as DENORT_BIN makes a copy of Deno) fails the build, naming the cause.
 * The binaries here are real executables: small scripts, and the deno command line itself.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { checkBinary } from "../../../scripts/compile.ts";

async function script(dir: string, body: string): Promise<string> {
  const path = `${dir}/parley`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test("compile: the built binary must answer --version as Parley", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "parley-compile-" });
  try {
    await t.step("Parley's version passes", async () => {
      assertEquals(await checkBinary(await script(dir, 'echo "1.2.3"'), "1.2.3"), undefined);
    });
    await t.step("the deno command line as DENORT_BIN is named as the cause", async () => {
      const why = await checkBinary(Deno.execPath(), "1.2.3", "/usr/local/bin/deno");
      assertStringIncludes(why!, "not Parley's 1.2.3");
      assertStringIncludes(why!, "DENORT_BIN=/usr/local/bin/deno is the deno command line");
    });
    await t.step("a binary answering something else fails with what it said", async () => {
      const why = await checkBinary(await script(dir, 'echo "hello"'), "1.2.3", "/opt/denort");
      assertStringIncludes(why!, 'answered "hello"');
      assertStringIncludes(why!, "DENORT_BIN=/opt/denort");
    });
    await t.step("a binary that fails to run is named", async () => {
      const why = await checkBinary(await script(dir, "exit 3"), "1.2.3", "");
      assertStringIncludes(why!, "not Parley's 1.2.3");
      const missing = await checkBinary(`${dir}/nothing`, "1.2.3", "");
      assertStringIncludes(missing!, "does not run");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
