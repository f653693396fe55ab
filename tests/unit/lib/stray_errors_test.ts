/**
 * lib/stray_errors.ts in processes of their own (the net is process-wide): a rejection nobody
 * handles and an exception thrown from a timer are logged with their stacks and the process goes
 * on; past ten a window, the rest are counted and said once. A tolerated fault is a warning, in a
 * process without the net too, where any other still ends it.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { runScript } from "../../support/child_script.ts";

const MODULE = new URL("../../../lib/stray_errors.ts", import.meta.url).href;

const SCRIPT = `
import { catchStrayErrors, strayErrors } from ${JSON.stringify(MODULE)};
// A window of 2 s: the errors come within 30 ms, and one window must hold them all however long a
// loaded machine holds this process up in between.
catchStrayErrors(2000);
Promise.reject(new Error("rejected first"));
setTimeout(() => { throw new Error("thrown from a timer"); }, 10);
setTimeout(() => { for (let i = 0; i < 20; i++) Promise.reject(new Error("one of many " + i)); }, 30);
// The count of those not logged is said at the window's end; the process waits for it.
setTimeout(() => console.log("alive", strayErrors.count), 2500);
`;

Deno.test("an uncaught error is logged with its stack and the process goes on", async () => {
  const out = await runScript(SCRIPT);
  const { stdout, stderr } = out;
  assertEquals(out.code, 0, stderr);
  assertEquals(stdout.trim(), "alive 22");
  const lines = stderr.trim().split("\n");
  const logged = lines.filter((l) => l.includes("uncaught error; Parley goes on"));
  assertEquals(logged.length, 10, stderr);
  // In either order: the runtime may run a timer that is already due before it reports the
  // rejection made before it (a loaded machine did).
  const rejection = logged.find((l) => l.includes("rejected first")) ?? "";
  assertStringIncludes(rejection, "kind=rejection");
  assert(/error="Error: rejected first\\n +at /.test(rejection), `a stack: ${rejection}`);
  const exception = logged.find((l) => l.includes("thrown from a timer")) ?? "";
  assertStringIncludes(exception, "kind=exception");
  assert(logged.indexOf(rejection) < 2 && logged.indexOf(exception) < 2, stderr);
  const rest = lines.filter((l) => l.includes("more uncaught errors"));
  assertEquals(rest.length, 1, stderr);
  assertStringIncludes(rest[0], "count=12");
});

Deno.test("a tolerated fault is a warning, not counted; without the net, others still end it", async () => {
  const out = await runScript(`
import { strayErrors, tolerate } from ${JSON.stringify(MODULE)};
tolerate("rejection", (e) => String(e).includes("known") ? "a known harmless fault" : undefined);
Promise.reject(new Error("a known one"));
setTimeout(() => console.log("alive", strayErrors.count), 20);
setTimeout(() => Promise.reject(new Error("anything else")), 40);
// Far after: on a loaded machine a timer due by the time the rejection is handled could run
// before it ends the process.
setTimeout(() => console.log("still alive"), 3000);
`);
  assertEquals(out.stdout.trim(), "alive 0");
  assertStringIncludes(out.stderr, "WARN a known harmless fault");
  assertStringIncludes(out.stderr, "a known one");
  assertStringIncludes(out.stderr, "anything else");
  assert(out.code !== 0, "an error nothing tolerates ends a process without the net");
});
