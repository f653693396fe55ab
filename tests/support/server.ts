/** Starts the real Parley daemon as a child process on a free port with its own data folder. */
import { freePort } from "./ports.ts";
import { testDatabaseUrl } from "./test_backend.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** A running Parley for one test. */
export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  home: string;
  env: Record<string, string>;
  /** Everything the daemon printed so far. */
  output(): string;
  /** The daemon's process id while it runs (benchmarks read its CPU time in /proc). */
  pid?(): number | undefined;
  /** Stops the daemon with SIGTERM and waits for it; keeps the data folder; returns the exit code. */
  stop(): Promise<number>;
  /** Kills the daemon with SIGKILL (no shutdown of any kind) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Stops and starts again on the same port and data folder. */
  restart(): Promise<void>;
  /** Stops and removes the data folder. */
  close(): Promise<void>;
}

/** Options for startServer. */
export interface ServerOptions {
  env?: Record<string, string>;
  home?: string;
  /** Run a compiled binary instead of `deno run main.ts`. */
  binary?: string;
  /** Permission flags for `deno run` instead of `-A`. */
  permissions?: string[];
}

const databases = new Map<string, string>();

/** How long a daemon may take to stop on SIGTERM (it bounds its own shutdown well below this). */
const STOP_MS = 30_000;

/** What the daemon logs for an error no code caught (lib/stray_errors.ts). */
const STRAY_ERROR = "uncaught error; Parley goes on";

/**
 * In the runner's PostgreSQL pass, the database of data folder `home` (made on first use), so
 * that a daemon started again on the same folder, or a seed before it, finds the same data.
 */
export async function databaseFor(home: string): Promise<string | undefined> {
  let url = databases.get(home);
  if (!url) {
    url = await testDatabaseUrl();
    if (url) databases.set(home, url);
  }
  return url;
}

/** Starts Parley and resolves once it answers HTTP. */
export async function startServer(opts: ServerOptions = {}): Promise<TestServer> {
  const home = opts.home ?? await Deno.makeTempDir({ prefix: "parley-test-" });
  const databaseUrl = opts.env?.PARLEY_DATABASE_URL ? undefined : await databaseFor(home);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PARLEY_HOME: home,
    PARLEY_LISTEN: url,
    PARLEY_CONNECT_DELAY: "0",
    PARLEY_LOG_LEVEL: "debug",
    PARLEY_UPDATE_URL: "",
    // The test IRC servers run on loopback, which ordinary users may not reach by default;
    // tests of that rule pass "0".
    PARLEY_IRC_ALLOW_PRIVATE: "1",
    // A new user's own default connection would reach out to the configured IRC network; the
    // tests that want it (tests/compat/) pass "1".
    PARLEY_NEW_USER_CONNECTION: "0",
    NO_COLOR: "1",
    ...(databaseUrl ? { PARLEY_DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  };
  let out = "";
  let child: Deno.ChildProcess | undefined;
  let pumps: Promise<void>[] = [];

  async function pump(stream: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  }

  async function start() {
    const cmd = opts.binary
      ? new Deno.Command(opts.binary, {
        args: ["daemon"],
        env,
        stdout: "piped",
        stderr: "piped",
        cwd: home,
      })
      : new Deno.Command(Deno.execPath(), {
        // --expose-gc as `deno task start` has it: the daemon collects after a burst.
        args: [
          "run",
          "--v8-flags=--expose-gc",
          ...(opts.permissions ?? ["-A"]),
          "main.ts",
          "daemon",
        ],
        cwd: ROOT,
        env,
        stdout: "piped",
        stderr: "piped",
      });
    child = cmd.spawn();
    pumps = [pump(child.stdout), pump(child.stderr)];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        const res = await fetch(`${url}/api`);
        await res.body?.cancel();
        if (res.status === 200) return;
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`Parley did not start:\n${out}`);
  }

  async function kill(): Promise<void> {
    if (!child) return;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
    await Promise.all(pumps);
    child = undefined;
  }

  async function stop(): Promise<number> {
    if (!child) return 0;
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    // A daemon that does not end on SIGTERM is a fault of its own: say so with its log's tail
    // rather than hang the suite, and leave no process behind.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), STOP_MS));
    const ended = await Promise.race([child.status, late]);
    clearTimeout(timer);
    if (ended === "late") {
      await kill();
      throw new Error(
        `Parley did not stop within ${STOP_MS / 1000} s of SIGTERM:\n${
          out.split("\n").slice(-40).join("\n")
        }`,
      );
    }
    await Promise.all(pumps);
    child = undefined;
    // The daemon survives an error no code caught, so a test would not see it fail: the log does.
    const stray = out.split("\n").find((l) => l.includes(STRAY_ERROR));
    if (stray) throw new Error(`Parley logged an error no code caught:\n${stray}`);
    return ended.code;
  }

  await start();
  return {
    url,
    home,
    env,
    output: () => out,
    pid: () => child?.pid,
    stop,
    kill,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      await stop();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * The IRC-related tail of a daemon's log and an IRC server's output, for a failure message: CI
 * shows only part of a run's output, so a test that waits on IRC says what Parley saw.
 */
export function diagnose(daemonLog: string, ircLog = "", lines = 30): string {
  const irc = daemonLog.split("\n").filter((l) => /irc|connect|join|regist|nick/i.test(l));
  return [
    "--- parley (irc lines) ---",
    ...irc.slice(-lines),
    "--- irc server ---",
    ...ircLog.split("\n").slice(-lines),
  ].join("\n");
}

/**
 * `t.step` that remembers whether a step failed: a failed step does not throw into its test, so
 * without this the test's `finally` cannot tell that the daemon's log is worth printing.
 */
export function recordSteps(t: Deno.TestContext) {
  let failed = false;
  return {
    async step(name: string, fn: (t: Deno.TestContext) => void | Promise<void>): Promise<boolean> {
      const ok = await t.step(name, fn);
      if (!ok) failed = true;
      return ok;
    },
    get failed() {
      return failed;
    },
  };
}
