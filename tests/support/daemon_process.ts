/**
 * The daemon as a child process of a test (`main.ts daemon` with its own environment), its output
 * kept, stopped or signalled at will; `wrap` runs it under another program first (`setpriv`,
 * `prlimit`).
 */
import { freePort } from "./ports.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Starts the daemon with `env` (over quiet defaults: no update check, no default connection). */
export function daemonProcess(env: Record<string, string>, wrap: string[] = []) {
  const [command, ...pre] = wrap.length ? wrap : [Deno.execPath()];
  const child = new Deno.Command(command, {
    args: [...(wrap.length ? [...pre, Deno.execPath()] : []), "run", "-A", "main.ts", "daemon"],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      PARLEY_UPDATE_URL: "",
      PARLEY_NEW_USER_CONNECTION: "0",
      PARLEY_LISTEN: `http://127.0.0.1:${freePort()}`,
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const decoder = new TextDecoder();
  const pumps = [child.stdout, child.stderr].map(async (s) => {
    for await (const chunk of s) out += decoder.decode(chunk, { stream: true });
  });
  return {
    output: () => out,
    /** Waits for the exit; the code and everything printed. */
    async exited(): Promise<{ code: number; out: string }> {
      const { code } = await child.status;
      await Promise.all(pumps);
      return { code, out };
    },
    signal(signal: Deno.Signal): void {
      child.kill(signal);
    },
    async stop(): Promise<void> {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await Promise.all(pumps);
    },
  };
}
