/**
 * The web client takes its API types from the server's contract (protocol/contract) with type-only
 * imports; this bundles the client as `deno task build` does and checks that none of zod, which
 * the contract is written in, came along.
 */
import { assert } from "../support/assert.ts";

const root = new URL("../..", import.meta.url).pathname;

Deno.test("the client bundle carries the contract's types, not zod", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parley-bundle-" });
  try {
    const out = `${dir}/app.js`;
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--platform", "browser", "--minify", "-o", out, "static/app/app.tsx"],
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert(run.success, new TextDecoder().decode(run.stderr));
    const code = await Deno.readTextFile(out);
    assert(code.includes("/user/login"), "the bundle is the client");
    // Names zod gives its classes at run time, which survive minifying.
    for (const marker of ["$ZodType", "$ZodError", "ZodError"]) {
      assert(!code.includes(marker), `zod reached the client bundle (${marker})`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
