/**
 * The client's first load stays small: the entry bundle and the chunks it imports statically,
 * gzipped, stay under the bound; the rarely used screens are chunks of their own, left out of it.
 */
import { assert } from "../../support/assert.ts";
import { bundleArgs } from "../../../scripts/build.ts";
import { ENTRY_GZIP_LIMIT, entryGzip } from "../../../scripts/bundle_size.ts";

const root = new URL("../../..", import.meta.url).pathname;

Deno.test("the entry bundle is under 40 KB gzipped, the rare screens load apart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-bundle-" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: bundleArgs(dir),
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert(run.success, new TextDecoder().decode(run.stderr));
    const { files, bytes } = await entryGzip(dir);
    assert(
      bytes < ENTRY_GZIP_LIMIT,
      `the entry bundle is ${bytes} bytes gzipped (${files.join(", ")}), over ${ENTRY_GZIP_LIMIT}`,
    );
    const all = [...Deno.readDirSync(dir)].map((e) => e.name);
    for (const screen of ["Admin", "Account"]) {
      const chunk = all.find((n) => n.startsWith(`${screen}-`) && n.endsWith(".js"));
      assert(chunk, `no chunk of its own for ${screen}: ${all.join(", ")}`);
      assert(!files.includes(chunk), `${screen} is loaded with the entry`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
