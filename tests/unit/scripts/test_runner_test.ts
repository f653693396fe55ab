/**
 * `deno task test` counts from `deno test`'s JUnit report (scripts/test.ts, readJunit): a real
 * report of files that pass, fail in a step, fail while loading or declare no test gives the
 * right counts and names the files that failed. A run that does not end is stopped at its limit,
 * with what its tests started.
 */
import { assertEquals } from "../../support/assert.ts";
import { readJunit, run } from "../../../scripts/test.ts";

const FILES: Record<string, string> = {
  "pass_test.ts": `Deno.test("one", () => {}); Deno.test("two", () => {});`,
  "step_test.ts": `Deno.test("outer", async (t) => {
    await t.step("fine", () => {});
    await t.step("broken", () => { throw new Error("step"); });
  });
  Deno.test("after", () => {});`,
  "load_test.ts": `throw new Error("does not load"); Deno.test("never", () => {});`,
  "empty_test.ts": `// no tests here`,
  "ignored_test.ts": `Deno.test({ name: "skipped", ignore: true, fn() {} });`,
};

Deno.test("the JUnit report gives the counts and names the failed files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-junit-test-" });
  try {
    for (const [name, text] of Object.entries(FILES)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["test", "--no-check", "--parallel", "--junit-path=report.xml", ...Object.keys(FILES)],
      cwd: dir,
      stdout: "null",
      stderr: "null",
    }).output();
    assertEquals(out.success, false);
    const xml = await Deno.readTextFile(`${dir}/report.xml`);
    // The runner passes the files that declare tests; those missing from the report failed.
    const declaring = Object.keys(FILES).filter((f) => FILES[f].includes("Deno.test"))
      .map((f) => `./${f}`);
    const report = readJunit(xml, declaring);
    assertEquals(report.files.sort(), ["./load_test.ts", "./step_test.ts"]);
    // pass: 2; step: "after" passes and "outer" fails (its steps are not counted); load: one
    // failure for the file; empty and ignored: nothing.
    assertEquals({ passed: report.passed, failed: report.failed }, { passed: 3, failed: 2 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run that does not end is stopped at its limit, with what its tests started", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-limit-test-" });
  try {
    // A test waiting forever on a process it started, as one waiting on a daemon that hangs.
    await Deno.writeTextFile(
      `${dir}/hang_test.ts`,
      `Deno.test("never ends", async () => {
        const child = new Deno.Command("sleep", { args: ["1000"] }).spawn();
        await Deno.writeTextFile("sleep.pid", String(child.pid));
        await child.status;
      });`,
    );
    const result = await run(["--no-check"], ["./hang_test.ts"], {}, 3000, dir);
    assertEquals(result, { ok: false, code: 1, passed: 0, failed: 1, files: [], unnamed: true });
    const pid = await Deno.readTextFile(`${dir}/sleep.pid`);
    // Gone, or a zombie until init reaps it: not running on.
    const state = await Deno.readTextFile(`/proc/${pid}/stat`).then(
      (stat) => stat.slice(stat.lastIndexOf(")") + 2)[0],
      () => "gone",
    );
    assertEquals(["gone", "Z"].includes(state), true, `the test's process is ${state}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
