/**
 * `deno task compile`: builds the single `parley` binary with the web client, the dictionaries
 * and the migrations embedded. `deno compile` downloads its `denort` runtime unless `DENORT_BIN`
 * names one already on disk (for offline builds); this script passes the environment through.
 *
 *   deno task compile                         # ./dist/parley for this machine
 *   deno task compile --target aarch64-unknown-linux-gnu --output dist/parley-arm64
 */
import { join } from "node:path";
import denoJson from "../deno.json" with { type: "json" };
import { BACKENDS } from "../store/backends.ts";

const root = new URL("..", import.meta.url).pathname;

/**
 * Files and folders read at run time: the app finds them relative to `import.meta.dirname`,
 * and the worker modules (the IRC socket thread; each store backend lists its own, with its
 * migrations), with the modules they import, are loaded by URL, which compile does not follow on
 * its own.
 *
 * @internal test seam
 */
export const EMBEDDED = [
  "static/",
  "i18n/",
  ...BACKENDS.flatMap((b) => b.embedded),
  "lib/malloc_trim.ts",
  "lib/idle_gc.ts",
  "lib/clock.ts",
  "lib/log.ts",
  "lib/thread_priority.ts",
  "irc/socket/worker.ts",
  "irc/socket/protocol.ts",
  "irc/socket/batcher.ts",
  "irc/socket/read_size.ts",
];

/**
 * Runs the built binary's `--version`: `deno compile` with `DENORT_BIN` naming the `deno` command
 * line instead of `denort` reports success and writes a copy of Deno that ignores Parley. Returns
 * why the binary is not Parley, or undefined when it answers with Parley's version.
 *
 * @internal test seam
 */
export async function checkBinary(
  path: string,
  version: string,
  denortBin = Deno.env.get("DENORT_BIN"),
): Promise<string | undefined> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(path, {
      args: ["--version"],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
  } catch (err) {
    return `${path} does not run (${(err as Error).message})`;
  }
  const text = new TextDecoder();
  const answer = text.decode(out.stdout).trim();
  if (out.success && answer === version) return undefined;
  const said = (answer || text.decode(out.stderr).trim()).split("\n")[0].slice(0, 120);
  const cause = /^deno \d/.test(said)
    ? denortBin
      ? `DENORT_BIN=${denortBin} is the deno command line, not denort (the runtime deno ` +
        "compile needs, from the denort-*.zip of the same Deno release)"
      : "the binary is Deno itself, not Parley"
    : denortBin
    ? `is DENORT_BIN=${denortBin} a denort of this Deno version (${Deno.version.deno})?`
    : "the build is broken";
  return `${path} --version answered "${said}", not Parley's ${version}: ${cause}`;
}

function option(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? undefined : Deno.args[i + 1];
}

if (import.meta.main) {
  const output = option("output") ?? join(root, "dist", "parley");
  const target = option("target");
  for (const dir of EMBEDDED) {
    try {
      await Deno.stat(join(root, dir));
    } catch {
      console.error(`compile: ${dir} is missing; run \`deno task build\` first`);
      Deno.exit(1);
    }
  }
  const args = [
    "compile",
    // The daemon needs the network, its data folder, its environment, and FFI for argon2.
    "--allow-net",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-ffi",
    "--allow-sys",
    // `gc()` for a full collection once a burst is over (lib/idle_gc.ts), as `deno task start`.
    "--v8-flags=--expose-gc",
    ...EMBEDDED.flatMap((dir) => ["--include", dir]),
    "--output",
    output,
    ...(target ? ["--target", target] : []),
    "main.ts",
  ];
  if (Deno.env.get("DENORT_BIN")) {
    console.error(`compile: using DENORT_BIN=${Deno.env.get("DENORT_BIN")}`);
  }
  const status = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  })
    .spawn().status;
  if (!status.success) {
    console.error(
      "compile: deno compile failed. Offline, point DENORT_BIN at a denort binary of the same Deno version.",
    );
    Deno.exit(status.code || 1);
  }
  // A binary for another machine cannot run here; the check is for this machine's builds.
  if (!target || target === Deno.build.target) {
    const wrong = await checkBinary(output, denoJson.version);
    if (wrong) {
      // Removed, so that what is left in dist/ is never installed by mistake.
      await Deno.remove(output).catch((err) =>
        console.error(`compile: could not remove ${output}: ${err}; do not install it`)
      );
      console.error(`compile: ${wrong}`);
      Deno.exit(1);
    }
  }
  console.log(`compile: wrote ${output}`);
}
