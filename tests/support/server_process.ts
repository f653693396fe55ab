/**
 * A test server run as a child process (ngircd, ircd-hybrid): started and stopped again at will,
 * its output kept for a failure's message, ready once its port takes connections.
 */

/** A server process of the tests. */
export interface ServerProcess {
  /** Starts it; resolves once 127.0.0.1:`port` takes connections (throws when it exits first). */
  start(): Promise<void>;
  /** Kills it (SIGKILL) and waits for it. */
  stop(): Promise<void>;
  /** What it printed so far. */
  output(): string;
}

/**
 * Runs `command` with `args` (in `cwd`); `name` and `more()` (say, its log file) go into the
 * error when it does not start.
 */
export function serverProcess(opts: {
  name: string;
  command: string;
  args: string[];
  port: number;
  cwd?: string;
  more?: () => string;
}): ServerProcess {
  let out = "";
  let child: Deno.ChildProcess | undefined;
  return {
    async start() {
      child = new Deno.Command(opts.command, {
        args: opts.args,
        stdout: "piped",
        stderr: "piped",
        cwd: opts.cwd,
      }).spawn();
      const decoder = new TextDecoder();
      for (const stream of [child.stdout, child.stderr]) {
        (async () => {
          for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
        })();
      }
      const exited = child.status.then(() => true);
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if (await Promise.race([exited, new Promise((r) => setTimeout(() => r(false), 30))])) break;
        try {
          const conn = await Deno.connect({ hostname: "127.0.0.1", port: opts.port });
          conn.close();
          return;
        } catch { /* not listening yet */ }
      }
      throw new Error(`${opts.name} did not start:\n${out}${opts.more?.() ?? ""}`);
    },
    async stop() {
      if (!child) return;
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
      child = undefined;
    },
    output: () => out,
  };
}
