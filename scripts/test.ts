/** `deno task test`: installs what the tests need, builds the client, runs every test, sums up. */
import { CHROMIUM, ensureTools, NGIRCD } from "./system_deps.ts";

const root = new URL("..", import.meta.url).pathname;

await ensureTools([NGIRCD, CHROMIUM]);

const build = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", "scripts/build.ts", "--if-stale"],
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (!build.success) Deno.exit(build.code || 1);

const args = Deno.args.length ? Deno.args : ["tests/"];
const child = new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", ...args],
  cwd: root,
  stdout: "piped",
  stderr: "inherit",
  env: { NO_COLOR: "1" },
}).spawn();

// Pass the output through while keeping the last lines for the summary.
let tail = "";
const decoder = new TextDecoder();
for await (const chunk of child.stdout) {
  await Deno.stdout.write(chunk);
  tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000);
}
const status = await child.status;
const m = /(\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/.exec(tail);
const passed = m ? Number(m[1]) : 0;
const failed = m ? Number(m[2]) : status.success ? 0 : 1;
console.log(`tests: ${passed} passed, ${failed} failed`);
Deno.exit(status.success && m ? 0 : status.code || 1);
