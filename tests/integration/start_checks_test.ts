/**
 * What the daemon checks before it runs anyone, on the real daemon: a database migrated by a newer
 * Parley is refused (both backends), each start's migrations are logged, and a node whose secret
 * is not the installation's is refused on a shared PostgreSQL.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { startPostgres } from "../support/postgres.ts";
import { startServer } from "../support/server.ts";
import { daemonProcess } from "../support/daemon_process.ts";
import { sqliteMigrations } from "../../store/sqlite/migrate.ts";
import { PG_MIGRATIONS_DIR } from "../../store/pg/db.ts";
import { loadMigrations } from "../../store/migration_files.ts";

/** A data folder of its own for a node that is refused (removed afterwards). */
async function withHome<T>(fn: (home: string) => Promise<T>): Promise<T> {
  const home = await Deno.makeTempDir({ prefix: "parley-test-" });
  try {
    return await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/**
 * Runs `parley daemon` and waits for it to exit; one that starts instead (the check missing) is
 * killed once it listens, and answers code -1.
 */
async function daemonExit(env: Record<string, string>): Promise<{ code: number; out: string }> {
  const d = daemonProcess(env);
  let killed = false;
  const watch = setInterval(() => {
    if (/ INFO ready /.test(d.output())) {
      killed = true;
      d.signal("SIGKILL");
    }
  }, 50);
  const { code, out } = await d.exited();
  clearInterval(watch);
  return { code: killed ? -1 : code, out };
}

const MIGRATED = /INFO migrated store 0 -> (\d+) in \d+\.\d s/;

Deno.test("SQLite: each start's migrations are logged; a newer schema is refused", async () => {
  const known = (await sqliteMigrations()).at(-1)!.version;
  const server = await startServer({ env: { PARLEY_DATABASE_URL: "" } });
  try {
    assertEquals(MIGRATED.exec(server.output())?.[1], String(known), server.output());
    await server.restart();
    assertEquals(server.output().match(/migrated store/g)?.length, 1, "nothing to migrate again");
    await server.stop();
    const db = new DatabaseSync(`${server.home}/parley.db`);
    db.exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (${known + 2}, 'x', 0)`);
    db.close();
    const { code, out } = await daemonExit({ PARLEY_HOME: server.home });
    assertEquals(code, 2, out);
    const refusal = out.trim().split("\n").at(-1)!;
    assertStringIncludes(refusal, `version ${known + 2}, newer than this Parley's (${known})`);
    assertEquals(out.match(/^parley: /gm)?.length, 1, out);
  } finally {
    await server.close();
  }
});

Deno.test("PostgreSQL: a newer schema is refused; a node with another PARLEY_SECRET is refused", async (t) => {
  const pg = await startPostgres();
  const known = (await loadMigrations(PG_MIGRATIONS_DIR)).at(-1)!.version;
  const secret = "the secret every node of this installation has";
  try {
    await t.step(
      "the first node stores a fingerprint of its secret, never the secret",
      async () => {
        const url = await pg.database();
        const first = await startServer({
          env: { PARLEY_DATABASE_URL: url, PARLEY_SECRET: secret },
        });
        try {
          assertEquals(MIGRATED.exec(first.output())?.[1], String(known), first.output());
          const other = await withHome((home) =>
            daemonExit({
              PARLEY_HOME: home,
              PARLEY_DATABASE_URL: url,
              PARLEY_SECRET: "another secret, of another installation",
            })
          );
          assertEquals(other.code, 2, other.out);
          const line = other.out.trim().split("\n").at(-1)!;
          assert(
            line.startsWith(
              "parley: PARLEY_SECRET is not the secret of this database's other nodes",
            ),
            line,
          );
          assert(!other.out.includes(" INFO ready "), other.out);
          // A node whose secret is generated in its data folder is another secret as well.
          const generated = await withHome((home) =>
            daemonExit({ PARLEY_HOME: home, PARLEY_DATABASE_URL: url })
          );
          assertEquals(generated.code, 2, generated.out);
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            const rows = await sql`SELECT fingerprint FROM installation_secret`;
            assertEquals(rows.length, 1);
            assert(!rows[0].fingerprint.includes(secret.slice(0, 8)), "not the secret itself");
          } finally {
            await sql.end();
          }
          // The same secret on another node, or the first again, starts.
          await first.restart();
          const second = await startServer({
            env: { PARLEY_DATABASE_URL: url, PARLEY_SECRET: secret },
          });
          await second.close();
        } finally {
          await first.close();
        }
      },
    );

    await t.step(
      "a database migrated by a newer Parley is refused, naming both versions",
      async () => {
        const url = await pg.database();
        const first = await startServer({
          env: { PARLEY_DATABASE_URL: url, PARLEY_SECRET: secret },
        });
        await first.stop();
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          await sql`INSERT INTO schema_migrations (version, name, applied) VALUES (${
            known + 1
          }, 'x', 0)`;
        } finally {
          await sql.end();
        }
        const { code, out } = await daemonExit({
          PARLEY_HOME: first.home,
          PARLEY_DATABASE_URL: url,
          PARLEY_SECRET: secret,
        });
        await first.close();
        assertEquals(code, 2, out);
        assertStringIncludes(
          out.trim().split("\n").at(-1)!,
          `parley: the database's schema is version ${
            known + 1
          }, newer than this Parley's (${known})`,
        );
      },
    );
  } finally {
    await pg.close();
  }
});
