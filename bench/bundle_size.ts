/**
 * Benchmark: the web client's first load, the entry bundle and the chunks it imports, gzipped
 * (scripts/bundle_size.ts). Bundles into a temporary folder, as `deno task build` does.
 */
import { bundleArgs } from "../scripts/build.ts";
import { entryGzip } from "../scripts/bundle_size.ts";

const dir = await Deno.makeTempDir({ prefix: "parley-bundle-" });
try {
  const out = await new Deno.Command(Deno.execPath(), {
    args: bundleArgs(dir),
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  const { files, bytes } = await entryGzip(dir);
  console.log(`bundle_gzip: ${bytes} bytes`);
  console.log(`bundle_entry_files: ${files.length} files`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
