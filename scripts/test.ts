/**
 * `deno task test`: installs what the tests need, builds the client, runs every test, sums up.
 *
 * The counts and the failed files come from `deno test`'s JUnit report, not from its human
 * output. The run ends with `tests: N passed, M failed` (N counts tests, not their steps) and
 * exits non-zero on any failure.
 *
 *   deno task test [--backend=NAME | --postgres] [--retry] [paths...]
 *
 * With no paths, the whole suite runs on the default backend (SQLite), then the route and
 * compatibility tests once more for every other backend of the registry (store/backends.ts),
 * each a pass of its own (tests/support/test_backend.ts starts what it needs). `--backend=NAME`
 * runs only that backend's pass (on the given paths, else the pass's default ones); `--postgres`
 * is `--backend=postgres`. `--retry` runs the files that failed once more, alone, and names those
 * that pass then as flaky; off by default (and on CI), because a retry that passes hides a flaky
 * test instead of showing it.
 */
import {
  CHROMIUM,
  ensureTools,
  IRCD_HYBRID,
  IRSSI,
  LIBFAKETIME,
  NGIRCD,
  POSTGRES,
  SLAPD,
  SYSTEMD_ANALYZE,
  TMUX,
  WEECHAT,
  ZNC,
} from "./system_deps.ts";
import { backendNamed, passBackends, startPass } from "../tests/support/test_backend.ts";
import { removeLeftover } from "../lib/remove.ts";

const root = new URL("..", import.meta.url).pathname;

const isFlag = (a: string) => a === "--postgres" || a === "--retry" || a.startsWith("--backend=");
/** The one backend whose pass to run (`--backend=NAME`, or `--postgres`'s), if named. */
const only = Deno.args.findLast((a) => a === "--postgres" || a.startsWith("--backend="))
  ?.replace(/^--postgres$/, "--backend=postgres").slice("--backend=".length);
const retry = Deno.args.includes("--retry");
const paths = Deno.args.filter((a) => !isFlag(a));
const args = paths.length ? paths : ["tests/"];
/** What a backend's pass runs again: the API, in process and through the daemon. */
const BACKEND_PASS = ["tests/routes/", "tests/compat/"];

/** A test file as `deno test` names it in its report: `./tests/unit/foo_test.ts`. */
type TestFile = string;

/** The test files under `paths`, each with whether it says `@test-alone` near its top. */
async function testFiles(paths: string[]): Promise<{ file: TestFile; alone: boolean }[]> {
  const out: { file: TestFile; alone: boolean }[] = [];
  const visit = async (path: string, named = false) => {
    const info = await Deno.stat(path).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    });
    if (!info) {
      if (!named) return;
      console.error(`test: no such file or folder: ${path.slice(root.length)}`);
      Deno.exit(1);
    }
    if (info.isDirectory) {
      for await (const e of Deno.readDir(path)) await visit(`${path.replace(/\/$/, "")}/${e.name}`);
    } else if (named || /_test\.tsx?$/.test(path)) {
      const head = (await Deno.readTextFile(path)).slice(0, 2000);
      out.push({ file: "./" + path.slice(root.length), alone: head.includes("@test-alone") });
    }
  };
  for (const p of paths) await visit(`${root}${p.replace(/^\.\//, "")}`, true);
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** What one `deno test` run did. */
interface Result {
  ok: boolean;
  code: number;
  passed: number;
  failed: number;
  /** The files with a failed test, or that failed outside any test. */
  files: TestFile[];
  /** The run failed where the report names no file: a retry of the named files cannot clear it. */
  unnamed?: boolean;
}

const unescape = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

/**
 * Reads a JUnit report as `deno test` writes it: one <testsuite> per file, one <testcase> per
 * test and per step (a step is named `test > step`, and its failure fails its test too: steps are
 * not counted again; a test cut short by an error outside it has an <error>). A file that fails
 * while loading has no suite at all, and neither has a file without tests: `expected` names the
 * files of the run that declare tests, and each of them missing from the report failed.
 *
 * @internal test seam
 */
export function readJunit(xml: string, expected: TestFile[]): Omit<Result, "ok" | "code"> {
  let passed = 0;
  let failed = 0;
  const files = new Set<TestFile>();
  const seen = new Set<TestFile>();
  for (const suite of xml.matchAll(/<testsuite name="([^"]*)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
    const file = unescape(suite[1]);
    seen.add(file);
    const cases = [...suite[2].matchAll(/<testcase name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)]
      .map((c) => ({
        name: unescape(c[1]),
        failed: /<(failure|error)\b/.test(c[2]),
        skipped: c[2].includes("<skipped"),
      }));
    const names = new Set(cases.map((c) => c.name));
    for (const c of cases) {
      const parts = c.name.split(" > ");
      const isStep = parts.slice(1).some((_, i) => names.has(parts.slice(0, i + 1).join(" > ")));
      if (isStep || c.skipped) continue;
      if (c.failed) {
        failed++;
        files.add(file);
      } else passed++;
    }
  }
  for (const file of expected) {
    if (seen.has(file)) continue;
    failed++;
    files.add(file);
  }
  return { passed, failed, files: [...files] };
}

/** The files among `files` (relative to `cwd`) that declare a test at all. */
async function declaringTests(files: TestFile[], cwd: string): Promise<TestFile[]> {
  const out: TestFile[] = [];
  for (const f of files) {
    if ((await Deno.readTextFile(`${cwd}/${f.slice(2)}`)).includes("Deno.test")) out.push(f);
  }
  return out;
}

/**
 * The longest one `deno test` run may take. The suite's longest (the parallel pass) takes about
 * 7 minutes on CI's two cores; a test that never ends then fails its run, and the rest of the
 * suite still runs, instead of using up CI's whole limit with no result.
 */
const RUN_LIMIT_MS = 25 * 60_000;

/**
 * One `deno test` run over `files`, its output passed through; stopped with everything it
 * started after `limitMs`.
 *
 * @internal test seam (`limitMs`, `cwd`)
 */
export async function run(
  testArgs: string[],
  files: TestFile[],
  env: Record<string, string>,
  limitMs = RUN_LIMIT_MS,
  cwd = root,
): Promise<Result> {
  const dir = await Deno.makeTempDir({ prefix: "parley-junit-" });
  const junit = `${dir}/report.xml`;
  try {
    // A session of its own (util-linux's setsid, in every Debian): a run over its limit is
    // stopped with the daemons, servers and browsers its tests started.
    const child = new Deno.Command("setsid", {
      args: [Deno.execPath(), "test", "-A", `--junit-path=${junit}`, ...testArgs, ...files],
      cwd,
      stdout: "inherit",
      stderr: "inherit",
      env: { NO_COLOR: "1", ...env },
    }).spawn();
    let late = false;
    const limit = setTimeout(() => {
      late = true;
      console.log(
        `\ntest: the run did not end within ${limitMs / 60_000} min and was stopped; ` +
          `the test that did not end said so above ("has been running for over")`,
      );
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch { /* why: it ended meanwhile, which is all the kill wanted */ }
    }, limitMs);
    // Out of the terminal's process group, the run no longer gets its Ctrl-C: passed on.
    const interrupted = () => {
      try {
        Deno.kill(-child.pid, "SIGINT");
      } catch { /* why: it ended meanwhile, which is all the signal wanted */ }
      Deno.exit(130);
    };
    Deno.addSignalListener("SIGINT", interrupted);
    Deno.addSignalListener("SIGTERM", interrupted);
    const status = await child.status.finally(() => {
      clearTimeout(limit);
      Deno.removeSignalListener("SIGINT", interrupted);
      Deno.removeSignalListener("SIGTERM", interrupted);
    });
    // Stopped: no report, and which test did not end is in the output, not known here.
    if (late) return { ok: false, code: 1, passed: 0, failed: 1, files: [], unnamed: true };
    const xml = await Deno.readTextFile(junit).catch(() => "");
    const declaring = status.success ? [] : await declaringTests(files, cwd);
    const report = readJunit(xml, declaring);
    // The run failed where no test did (a file that does not load, an error between tests):
    // that is a failure too, named by its file where the report lacks one.
    const unnamed = !status.success && report.failed === 0;
    if (unnamed) report.failed = 1;
    return { ok: status.success, code: status.code || 1, unnamed, ...report };
  } finally {
    await removeLeftover(dir, { recursive: true });
  }
}

/**
 * A whole pass over `paths`: the files in parallel, then the files that say `@test-alone` one at a
 * time (they measure whether Parley keeps up with a real IRC server, which other files' load on two
 * cores decides more than the code), then, with --retry, the failed files once more.
 */
async function pass(paths: string[], env: Record<string, string> = {}): Promise<Result> {
  const all = await testFiles(paths);
  const parallel = all.filter((f) => !f.alone).map((f) => f.file);
  const alone = all.filter((f) => f.alone).map((f) => f.file);
  const results: Result[] = [];
  if (parallel.length) results.push(await run(["--parallel"], parallel, env));
  if (alone.length) {
    console.log(`\nrunning alone: ${alone.join(" ")}`);
    results.push(await run([], alone, env));
  }
  const sum: Result = {
    ok: results.every((r) => r.ok),
    code: results.find((r) => !r.ok)?.code ?? 0,
    passed: results.reduce((n, r) => n + r.passed, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    files: results.flatMap((r) => r.files),
    unnamed: results.some((r) => r.unnamed),
  };
  if (!sum.ok) console.log(`\nfailed: ${sum.files.join(" ") || "(no file named; see above)"}`);
  if (retry && !sum.ok && sum.files.length && !sum.unnamed) {
    console.log(`\n--retry: running alone, once: ${sum.files.join(" ")}`);
    const again = await run([], sum.files, env);
    sum.passed += sum.failed - again.failed;
    sum.failed = again.failed;
    sum.ok = again.ok;
    sum.code = again.code;
    if (again.ok) console.log(`FLAKY (failed, then passed alone): ${sum.files.join(" ")}`);
  }
  return sum;
}

if (import.meta.main) {
  await ensureTools([
    NGIRCD,
    IRCD_HYBRID,
    CHROMIUM,
    POSTGRES,
    IRSSI,
    WEECHAT,
    TMUX,
    ZNC,
    LIBFAKETIME,
    SLAPD,
  ]);
  await ensureTools([SYSTEMD_ANALYZE]).catch((err) =>
    console.log(`${err.message}: the unit file checks are skipped`)
  );
  const build = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/build.ts", "--if-stale"],
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!build.success) Deno.exit(build.code || 1);

  let passed = 0;
  let failed = 0;
  let code = 0;
  const add = (r: Result) => {
    passed += r.passed;
    failed += r.failed;
    if (!r.ok) code ||= r.code || 1;
  };
  if (only === undefined) add(await pass(args));
  const backends = only !== undefined ? [backendNamed(only)] : paths.length ? [] : passBackends();
  for (const backend of backends) {
    const started = await startPass(backend);
    try {
      const on = paths.length ? paths : BACKEND_PASS;
      console.log(`\n${backend.name} pass: ${on.join(" ")}`);
      add(await pass(on, started.env));
    } finally {
      await started.close();
    }
  }
  console.log(`tests: ${passed} passed, ${failed} failed`);
  Deno.exit(code);
}
