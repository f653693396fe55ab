/**
 * The PostgreSQL client's faults that no caller can catch (store/pg/db.ts): a process with the
 * store's pool lives through them. Here, sessions terminated over and over while the pool opens
 * connections again: the client's fetch of a new connection's array types is rejected with no
 * one to handle it, which ended the process before it was tolerated.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import postgres from "postgres";

/** What the process logs for the fault it lived through. */
const TOLD = "postgres: a connection ended while it was opening";

const ROOT = new URL("../..", import.meta.url).pathname;
const DB = new URL("../../store/pg/db.ts", import.meta.url).href;

/**
 * Queries the pool until told to stop on stdin, then once more: "alive" when the pool answers again
 * (a connection ended by the last termination may fail the first try).
 */
const SCRIPT = `
import { connectPg } from ${JSON.stringify(DB)};
const sql = connectPg(Deno.args[0], 2);
let stop = false;
Deno.stdin.read(new Uint8Array(1)).then(() => stop = true);
while (!stop) {
  await sql\`SELECT 1\`.catch(() => {});
  await new Promise((r) => setTimeout(r, Math.random() * 10));
}
let answer;
for (let i = 0; i < 3 && !answer; i++) answer = await sql\`SELECT 1 AS x\`.catch(() => undefined);
await sql.end({ timeout: 1 });
console.log(answer?.[0]?.x === 1 ? "alive" : "no answer after");
`;

Deno.test("the store's pool lives through sessions ended while they open", async () => {
  const pg = await startPostgres();
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", SCRIPT, pg.url],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (err += chunk) }),
  );
  let ended = false;
  child.status.then(() => ended = true);
  try {
    // Until the client's fault came and was told of (or the process ended), within a bound.
    for (let tries = 0; tries < 3000 && !ended && !err.includes(TOLD); tries++) {
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`;
      await new Promise((r) => setTimeout(r, Math.random() * 10));
    }
  } finally {
    await admin.end();
  }
  const writer = child.stdin.getWriter();
  await writer.write(new Uint8Array([10])).catch(() => {});
  await writer.close().catch(() => {});
  const [status, out] = await Promise.all([child.status, new Response(child.stdout).text()]);
  await reading;
  await pg.close();
  assertEquals([status.code, out.trim()], [0, "alive"], err);
  assertStringIncludes(err, TOLD);
  assert(!err.includes("uncaught"), err);
});
