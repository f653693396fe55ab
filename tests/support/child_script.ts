/**
 * Runs a script in a Deno process of its own (`deno eval`), for what is process-wide: the global
 * error events, or a heap measured after a collection the test runs (`gc` with `--expose-gc`).
 */

/** What the process wrote and how it ended. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `script`, with `v8Flags` (e.g. `--expose-gc`) when given. */
export async function runScript(script: string, v8Flags: string[] = []): Promise<ScriptRun> {
  const flags = v8Flags.length ? [`--v8-flags=${v8Flags.join(",")}`] : [];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", ...flags, script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
