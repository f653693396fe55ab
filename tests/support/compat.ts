// deno-lint-ignore-file no-explicit-any -- answers are read by JSON pointer, as Test::Mojo does
/**
 * Helpers for tests/compat/: Convos 8.07's own web tests ported to Parley. Every check names the
 * Convos file and line it comes from ("web-user.t:16"), so a failure points at what Convos pins.
 *
 * `pending(reason, fn)` wraps a check that Parley does not pass yet (tests/compat/README.md):
 * it passes while the check fails and FAILS once the check passes, so the list cannot go stale.
 *
 * Inside a `pending` block every check runs (a failure is collected, not thrown); the block passes
 * when at least one of them fails. With `PARLEY_COMPAT_REPORT=<file>` failing checks outside
 * `pending` do not stop a test either: every check appends a JSON line (`{where, result: "pass" |
 * "fail" | "pending" | "pass-in-pending" | "now-passes", error?, reason?}`) to the file and the
 * test goes on, so one run lists every gap and gives the counts. The test still fails: closing its
 * server throws for the failures it collected (a report is for reading, not for passing).
 */
import { deepStrictEqual } from "node:assert/strict";
import { join } from "node:path";
import type { ApiResponse } from "./api.ts";
import { ApiClient } from "./api.ts";
import { databaseFor, startServer, type TestServer } from "./server.ts";
import { startApp, type TestApp } from "./app.ts";
import { applySeed, type Seed } from "./compat_seed.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const REPORT = Deno.env.get("PARLEY_COMPAT_REPORT");

/** A failed check; `where` is the Convos file and line. */
export class CheckFailure extends Error {
  constructor(readonly where: string, message: string) {
    super(`${where}: ${message}`);
  }
}

/** The failures collected by the innermost running `pending` block. */
const pendingStack: { reason: string; failures: string[] }[] = [];

/** In report mode, the failures (and stale `pending` wrappers) no server's close has thrown yet. */
let unclaimed: string[] = [];

/** Throws for the failures collected in report mode since the last call. */
function claimFailures() {
  const failures = unclaimed;
  unclaimed = [];
  if (failures.length) {
    throw new Error(`${failures.length} compat checks failed (${REPORT}):\n${failures.join("\n")}`);
  }
}

function record(entry: Record<string, unknown>) {
  if (REPORT) Deno.writeTextFileSync(REPORT, JSON.stringify(entry) + "\n", { append: true });
}

function show(v: unknown): string {
  const s = v === undefined ? "undefined" : JSON.stringify(v);
  return s.length > 300 ? s.slice(0, 300) + "…" : s;
}

/** The first line of a tests/compat/ file on the stack: where the failing check is written. */
function callSite(): string | undefined {
  const stack = new Error().stack ?? "";
  return /tests\/compat\/(\w+\.ts):(\d+)/.exec(stack)?.slice(1, 3).join(":");
}

/** Runs one check. Throws on failure, except in report mode outside `pending`. */
export function check(where: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    const failure = err instanceof CheckFailure
      ? err
      : new CheckFailure(where, (err as Error).message);
    const collector = pendingStack.at(-1);
    if (collector) {
      collector.failures.push(failure.message);
      record({ where, result: "pending", reason: collector.reason, error: failure.message });
      return;
    }
    if (REPORT) {
      record({ where, result: "fail", error: failure.message, at: callSite() });
      unclaimed.push(failure.message);
      return;
    }
    throw failure;
  }
  record({ where, result: pendingStack.length ? "pass-in-pending" : "pass" });
}

/**
 * Perl's is_deeply, as Test::Mojo's json_is uses it: numbers and numeric strings are equal
 * (Convos writes `uid => 1` and checks the string type separately), everything else strict.
 */
function perlish(v: unknown): unknown {
  if (typeof v === "number") return String(v);
  if (Array.isArray(v)) return v.map(perlish);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, perlish(x)]));
  }
  return v;
}

/** The value at a JSON pointer ("" is the whole document); undefined when absent. */
export function at(doc: unknown, pointer: string): any {
  if (pointer === "") return doc;
  let cur: any = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (cur === null || typeof cur !== "object" || !(key in cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** is(): deep equality as Perl's is_deeply (undefined and null are both Perl's undef). */
export function is(where: string, actual: unknown, expected: unknown, what = "") {
  check(where, () => {
    const a = actual === null ? undefined : actual;
    const e = expected === null ? undefined : expected;
    try {
      deepStrictEqual(perlish(a), perlish(e));
    } catch {
      throw new CheckFailure(where, `${what}expected ${show(expected)}, got ${show(actual)}`);
    }
  });
}

/** like(): the value as a string matches. */
export function like(where: string, actual: unknown, re: RegExp, what = "") {
  check(where, () => {
    if (actual === undefined || actual === null || !re.test(String(actual))) {
      throw new CheckFailure(where, `${what}expected to match ${re}, got ${show(actual)}`);
    }
  });
}

/** ok(): a truthy value. */
export function ok(where: string, value: unknown, what: string) {
  check(where, () => {
    if (!value) throw new CheckFailure(where, `expected ${what}`);
  });
}

/** status_is */
export function statusIs(where: string, res: ApiResponse, status: number) {
  is(where, res.status, status, `status (body ${show(res.body)}): `);
}

/** json_is */
export function jsonIs(where: string, res: ApiResponse, pointer: string, expected: unknown) {
  is(where, at(res.body, pointer), expected, `${pointer || "body"}: `);
}

/** json_like */
export function jsonLike(where: string, res: ApiResponse, pointer: string, re: RegExp) {
  like(where, at(res.body, pointer), re, `${pointer}: `);
}

/** json_has */
export function jsonHas(where: string, res: ApiResponse, pointer: string) {
  check(where, () => {
    if (at(res.body, pointer) === undefined) {
      throw new CheckFailure(where, `expected ${pointer} in ${show(res.body)}`);
    }
  });
}

/** json_hasnt */
export function jsonHasnt(where: string, res: ApiResponse, pointer: string) {
  check(where, () => {
    const v = at(res.body, pointer);
    if (v !== undefined) throw new CheckFailure(where, `expected no ${pointer}, got ${show(v)}`);
  });
}

/** header_is (undefined: the header is absent) */
export function headerIs(where: string, res: ApiResponse, name: string, value?: string) {
  is(where, res.headers.get(name) ?? undefined, value, `header ${name}: `);
}

/**
 * A check Parley does not pass yet. Passes while `fn` fails; fails once `fn` passes, so that the
 * wrapper is removed as soon as the fix lands.
 */
export async function pending(reason: string, fn: () => unknown | Promise<unknown>) {
  const failures: string[] = [];
  pendingStack.push({ reason, failures });
  try {
    await fn();
  } catch (err) {
    // Not a check of ours (a missing field read, a timeout): the block still fails.
    failures.push((err as Error).message);
    record({ result: "pending", reason, error: (err as Error).message });
  } finally {
    pendingStack.pop();
  }
  if (failures.length === 0) {
    record({ result: "now-passes", reason });
    const message = `pending check now passes, remove its pending() wrapper: ${reason}`;
    if (!REPORT) throw new Error(message);
    unclaimed.push(message);
  }
}

/**
 * Convos's `within`: resolves with what `p` gives, or undefined when it never comes, so the check
 * after it fails with its own message. `ms` is the Convos test's bound, kept for reference; the
 * wait is at least {@link WITHIN_FLOOR_MS}: on two loaded cores a line through ngircd and back can
 * take longer than Convos's few seconds, and a short bound made a slow answer a failure.
 */
export function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<undefined>((r) =>
      timer = setTimeout(() => r(undefined), Math.max(ms, WITHIN_FLOOR_MS))
    ),
  ]).catch(() => undefined);
}

/** The shortest wait of {@link within}: as long as an event waiter's own bound. */
export const WITHIN_FLOOR_MS = 15_000;

/** Options of compatServer: the Parley side of a Convos test's set-up. */
export interface CompatOptions {
  /** CONVOS_DEFAULT_CONNECTION / `$settings->default_connection(...)`. */
  defaultConnection?: string;
  /** Users and settings written to the data folder before Parley starts. */
  seed?: Seed;
  env?: Record<string, string>;
  /**
   * The test talks to an IRC server: Parley runs as the daemon, a child process, so that the
   * socket thread, the connection engine and the events socket run as a user's do. Without it
   * the test gets the app in process (tests/support/app.ts), which is what the other tests ask
   * for: HTTP answers, the same through app.fetch as through a socket, at a fraction of the cost.
   */
  irc?: boolean;
}

/** Parley for one ported test (the daemon, or the app in process), with a way to seed more. */
export interface CompatServer extends TestServer {
  /** `$core->user(...)->set_password(...)` (and role changes) while Parley runs. */
  seed(seed: Seed): Promise<void>;
  /** A new client of this server without a session. */
  client(): ApiClient;
}

async function runSeed(home: string, seed: Seed) {
  const url = await databaseFor(home);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tests/support/compat_seed.ts", home, JSON.stringify(seed)],
    env: url ? { PARLEY_DATABASE_URL: url } : {},
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

/**
 * Starts Parley for a ported Convos test: fast IRC timings, Convos's set-up mapped to Parley's.
 * A test with `irc: true` gets the daemon; every other one the app in process.
 */
export async function compatServer(opts: CompatOptions = {}): Promise<CompatServer> {
  // Convos gives each new user the default connection (web-user.t:80-104).
  const env: Record<string, string> = {
    PARLEY_TEST_FAST_IRC: "1",
    PARLEY_NEW_USER_CONNECTION: "1",
    ...opts.env,
  };
  if (opts.defaultConnection) env.PARLEY_DEFAULT_CONNECTION = opts.defaultConnection;
  return opts.irc ? await compatDaemon(env, opts.seed) : await compatApp(env, opts.seed);
}

async function compatDaemon(env: Record<string, string>, seed?: Seed): Promise<CompatServer> {
  const home = await Deno.makeTempDir({ prefix: "parley-compat-" });
  if (seed) await runSeed(home, seed);
  const server = await startServer({ home, env });
  return {
    ...server,
    async close() {
      await server.close();
      claimFailures();
    },
    seed: (seed) => runSeed(home, seed),
    client: () => new ApiClient(server.url),
  };
}

/**
 * The app in process, also served on a loopback port of its own (the events socket, and tests
 * that give that port to something else, need one): its clients are answered through app.fetch,
 * and every answer of a documented operation is checked against the document on the way.
 */
async function compatApp(env: Record<string, string>, seed?: Seed): Promise<CompatServer> {
  // The port is bound before the app starts and its requests wait for it: a port probed free and
  // bound only after the app's start could be taken in between (an outgoing connection of a
  // parallel test takes one of the same range).
  const controller = new AbortController();
  let started!: (app: TestApp) => void;
  const ready = new Promise<TestApp>((resolve) => started = resolve);
  const served = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen() {} },
    async (req, info) => (await ready).app.fetch(req, { remoteAddr: info.remoteAddr }),
  );
  const url = `http://127.0.0.1:${served.addr.port}`;
  const all = { PARLEY_LISTEN: url, PARLEY_IRC_ALLOW_PRIVATE: "1", ...env };
  const app = await startApp(all).catch(async (err) => {
    controller.abort();
    await served.finished;
    throw err;
  });
  started(app);
  if (seed) await applySeed(app.deps.store, seed);
  // As the daemon does once it listens: the users' connections start.
  await app.deps.irc.start();
  const daemonOnly = (what: string) => () => {
    throw new Error(`${what} needs the daemon: compatServer({ irc: true })`);
  };
  return {
    url,
    home: app.home,
    env: all,
    output: () => "",
    stop: daemonOnly("stop()"),
    kill: daemonOnly("kill()"),
    restart: daemonOnly("restart()"),
    async close() {
      controller.abort();
      await served.finished;
      await app.close();
      claimFailures();
    },
    seed: (seed) => applySeed(app.deps.store, seed),
    client: () => app.client(),
  };
}

/** The `csrf` a logged-in client needs for logout (Convos reads it from the page's meta tag). */
export async function csrfOf(api: ApiClient): Promise<string> {
  const res = await api.get("/api/user");
  return res.body?.csrf ?? "undef";
}

/** Convos's t::Helper::with_csrf: GET `path?csrf=<token>`. */
export async function withCsrf(api: ApiClient, path: string): Promise<ApiResponse> {
  return api.get(`${path}?csrf=${encodeURIComponent(await csrfOf(api))}`);
}

/**
 * Logs out through the API (logoutUser), so that a check after a missing GET /logout still means
 * what Convos's does: the session has ended.
 */
export async function apiLogout(api: ApiClient): Promise<void> {
  await withCsrf(api, "/api/user/logout");
}

/** Convos's t/Helper.pm messages.txt: 81 lines of `nick text` (`-` notice, `*` action). */
export function helperMessages(): { from: string; message: string; type: string }[] {
  return HELPER_MESSAGES.trim().split("\n").map((line) => {
    const [rawFrom, ...rest] = line.split(" ");
    const type = rawFrom.startsWith("-")
      ? "notice"
      : rawFrom.startsWith("*")
      ? "action"
      : "private";
    return { from: rawFrom.replace(/^[-*]/, ""), message: rest.join(" "), type };
  });
}

/** A path inside the daemon's data folder. */
export function homePath(server: TestServer, ...parts: string[]) {
  return join(server.home, ...parts);
}

// The nick-and-text fixture of Convos's t/Helper.pm (test data: a nick and a counted word pair).
const HELPER_MESSAGES = `
river 0 pencil
arm 1 kettle
place 2 story
teaching 3 trade
coil 4 smile
yard 5 power
insect 6 cap
table 7 advice
lamp 8 invention
income 9 frog
caption 10 teeth
machine 11 dog
quarter 12 pets
self 13 top
anger 14 fowl
vacation 15 society
berry 16 playground
shirt 17 low
bag 18 class
trip 19 governor
regret 20 men
industry 21 bed
shoe 22 sky
*coach 23 kittens
rake 24 wound
copper 25 card
driving 26 picture
guide 27 thing
stage 28 vase
birds 29 art
school 30 vest
wood 31 question
lunch 32 punishment
deer 33 treatment
eyes 34 recess
loaf 35 pot
roll 36 meal
discussion 37 notebook
verse 38 hobbies
account 39 guitar
month 40 pin
degree 41 letters
blade 42 level
field 43 pie
glove 44 control
veil 45 aunt
*doll 46 bee
credit 47 potato
plot 48 acoustics
airport 49 yard
doctor 50 curtain
basketball 51 title
shade 52 secretary
truck 53 loss
-vacation 54 cabbage
-wall 55 superman notification
-stitch 56 baby
-throat 57 bikes
-behavior 58 milk
cow 59 underwear
achiever 60 representative
wound 61 substance
profit 62 toys
shoe 63 argument
destruction 64 appliance
profit 65 canvas
can 66 stamp
lettuce 67 steam
desk 68 shape
cub 69 pleasure
muscle 70 zinc
cough 71 property
change 72 pear
*boundary 73 boot
company 74 unit
quince 75 bath
wax 76 pest
lip 77 number
flock 78 rings
volleyball 79 guide
toad 80 bead
`;
