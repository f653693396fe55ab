/**
 * A database the command line cannot use is one line naming the problem and the database, with
 * exit code 2, as the daemon says it: not the PostgreSQL client's error with its stack. The URL's
 * password is never repeated.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { parley } from "../support/cli.ts";
import { startPostgres } from "../support/postgres.ts";
import { freePort } from "../support/ports.ts";

/** The one line a refused command wrote on stderr. */
function oneLine(r: { code: number; stdout: string; stderr: string }): string {
  assertEquals(r.code, 2, r.stderr);
  const lines = r.stderr.trimEnd().split("\n");
  assertEquals(lines.length, 1, r.stderr);
  assert(!r.stderr.includes("secretpw"), r.stderr);
  return lines[0];
}

Deno.test("cli: a database that cannot be used is one line, exit 2", async (t) => {
  const pg = await startPostgres();
  const home = await Deno.makeTempDir({ prefix: "parley-cli-db-" });
  const port = new URL(pg.base).port;
  // Trust authentication ignores the password: it is there to be left out of messages.
  const missing = `postgres://parley:secretpw@127.0.0.1:${port}/nonexistentdb`;
  try {
    await t.step("parley user list on a database that does not exist", async () => {
      const r = await parley(["user", "list"], {
        env: { PARLEY_HOME: home, PARLEY_DATABASE_URL: missing },
      });
      assertEquals(
        oneLine(r),
        `parley: PARLEY_DATABASE_URL: cannot connect (no database "nonexistentdb" at ` +
          `127.0.0.1:${port})`,
      );
    });
    await t.step("parley user list with nothing listening there", async () => {
      const closed = freePort();
      const r = await parley(["user", "list"], {
        env: {
          PARLEY_HOME: home,
          PARLEY_DATABASE_URL: `postgres://parley:secretpw@127.0.0.1:${closed}/parley`,
        },
      });
      assertEquals(
        oneLine(r),
        `parley: PARLEY_DATABASE_URL: cannot connect (nothing accepts connections at ` +
          `127.0.0.1:${closed})`,
      );
    });
    await t.step("parley store copy into a database that does not exist", async () => {
      const added = await parley(["user", "add", "ann@example.org", "admin"], {
        env: { PARLEY_HOME: home },
        stdin: "a long enough password\n",
      });
      assertEquals(added.code, 0, added.stderr);
      const r = await parley(["store", "copy", "--to", missing], { env: { PARLEY_HOME: home } });
      assertEquals(
        oneLine(r),
        `parley: --to: cannot connect (no database "nonexistentdb" at 127.0.0.1:${port})`,
      );
      const file = await Deno.makeTempFile({ prefix: "parley-copy-url-" });
      try {
        await Deno.writeTextFile(file, `${missing}\n`);
        const r = await parley(["store", "copy"], {
          env: { PARLEY_HOME: home, PARLEY_STORE_COPY_TO_FILE: file },
        });
        assert(oneLine(r).startsWith("parley: PARLEY_STORE_COPY_TO_FILE: cannot connect ("));
      } finally {
        await Deno.remove(file);
      }
    });
  } finally {
    await Deno.remove(home, { recursive: true });
    await pg.close();
  }
});
