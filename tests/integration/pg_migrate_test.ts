/** PostgreSQL migrations: applied once, in order, also when two processes start together. */
import { assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { connectPg, migratePg, PG_MIGRATIONS_DIR } from "../../store/pg/db.ts";
import { loadMigrations } from "../../store/migration_files.ts";

Deno.test("pg migrations: applied once, each in a transaction, safe to run side by side", async (t) => {
  const server = await startPostgres();
  try {
    await t.step("pools starting together apply each version once", async () => {
      const pools = Array.from({ length: 4 }, () => connectPg(server.url, 1));
      try {
        const versions = (await loadMigrations(PG_MIGRATIONS_DIR)).map((m) => m.version);
        const applied = await Promise.all(pools.map((p) => migratePg(p)));
        assertEquals(applied.flat().sort((a, b) => a - b), versions);
        assertEquals(await migratePg(pools[0]), [], "nothing left to apply");
        const rows = await pools[0]`SELECT version FROM schema_migrations ORDER BY version`;
        assertEquals(rows.map((r) => r.version), versions);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    await t.step("a failing migration leaves nothing half done", async () => {
      const sql = connectPg(await server.database());
      try {
        const bad = { version: 1, name: "bad", sql: "CREATE TABLE t (x int); SELECT nope;" };
        let failed = false;
        await migratePg(sql, [bad]).catch(() => failed = true);
        assertEquals(failed, true);
        const [{ t }] = await sql`SELECT to_regclass('t')::text AS t`;
        assertEquals(t, null, "the table of the failed migration is not there");
        const good = { version: 1, name: "good", sql: "CREATE TABLE t (x int)" };
        assertEquals(await migratePg(sql, [good]), [1], "the version is still to apply");
      } finally {
        await sql.end();
      }
    });
  } finally {
    await server.close();
  }
});
