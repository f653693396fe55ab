/** Runs the `parley` command through its real entry point, as a user would. */
const ROOT = new URL("../..", import.meta.url).pathname;

/** What one command printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deno run -A main.ts ...args` with `env` added and `stdin` fed in. */
export async function parley(
  args: string[],
  opts: { env?: Record<string, string>; stdin?: string } = {},
): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", PARLEY_UPDATE_URL: "", ...opts.env },
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(opts.stdin));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}
