/**
 * `deno task build`: bundles the web client (static/app/) into static/dist/: the entry `app.js`,
 * the chunks it imports, and the chunks of screens loaded on demand. `--if-stale` skips a bundle
 * newer than its sources; `--watch` rebundles on every change.
 */
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const entry = join(root, "static/app/app.tsx");
const outDir = join(root, "static/dist");
const outFile = join(outDir, "app.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    newest = Math.max(
      newest,
      entry.isDirectory ? newestMtime(path) : Deno.statSync(path).mtime?.getTime() ?? 0,
    );
  }
  return newest;
}

function mtime(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/** `deno bundle`'s arguments for the client, written into `dir` (tests bundle into their own). */
export function bundleArgs(dir: string, watch = false): string[] {
  return [
    "bundle",
    "--platform",
    "browser",
    "--minify",
    "--code-splitting",
    "--sourcemap",
    "linked",
    // Quiet but for errors: `deno task start` printed "deno bundle is experimental" and a file
    // list before the daemon's first line.
    ...(watch ? ["--watch"] : ["--quiet"]),
    "--outdir",
    dir,
    entry,
  ];
}

/**
 * Bundles the client unless `ifStale` and the bundle is newer than every source; with `watch`
 * it keeps running and rebundles on every change (for `deno task dev`).
 */
async function build(ifStale: boolean, watch = false): Promise<void> {
  if (mtime(entry) === 0) return; // no client yet
  const sources = Math.max(
    newestMtime(join(root, "static/app")),
    mtime(join(root, "deno.json")),
    // The only modules outside static/app/ that the client bundles (tests/unit/layers_test.ts).
    newestMtime(join(root, "protocol")),
  );
  if (ifStale && !watch && mtime(outFile) > sources) return;
  // Chunks are named by their content: the last build's would pile up beside the new ones.
  await Deno.remove(outDir, { recursive: true }).catch((err) => {
    // A folder that cannot be emptied would ship stale chunks: only its absence is fine.
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
  await Deno.mkdir(outDir, { recursive: true });
  const out = await new Deno.Command(Deno.execPath(), {
    args: bundleArgs(outDir, watch),
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("deno bundle failed");
}

if (import.meta.main) await build(Deno.args.includes("--if-stale"), Deno.args.includes("--watch"));
