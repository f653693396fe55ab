/** PostgreSQL migrations: applied once, in order, also when two processes start together. */
import { assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { connectPg, migratePg } from "../../store/pg/db.ts";

Deno.test("pg migrations: applied once, each in a transaction, safe to run side by side", async (t) => {
  const server = await startPostgres();
  try {
    await t.step("two pools starting together apply each version once", async () => {
      const a = connectPg(server.url);
      const b = connectPg(server.url);
      try {
        const [ra, rb] = await Promise.all([migratePg(a), migratePg(b)]);
        assertEquals([...ra, ...rb], [1]);
        assertEquals(await migratePg(a), [], "nothing left to apply");
        const rows = await a`SELECT version FROM schema_migrations ORDER BY version`;
        assertEquals(rows.map((r) => r.version), [1]);
      } finally {
        await a.end();
        await b.end();
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
        assertEquals((await sql`SELECT count(*)::int AS n FROM schema_migrations`)[0].n, 0);
      } finally {
        await sql.end();
      }
    });
  } finally {
    await server.close();
  }
});
