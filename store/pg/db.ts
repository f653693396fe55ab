/**
 * A PostgreSQL connection pool for the store, and its numbered migrations (store/pg/migrations,
 * `NNN_name.sql`), each applied in its own transaction as store/migrate.ts does for SQLite.
 */
import postgres from "postgres";
import { loadMigrations, type Migration } from "../migrate.ts";

/** A connection pool (porsager's `postgres` client). */
export type Sql = postgres.Sql;

/** The folder of the PostgreSQL migration files. */
export const PG_MIGRATIONS_DIR = `${import.meta.dirname}/migrations`;

/**
 * Opens a pool on `url`. int8 columns come back as numbers: every id and timestamp the store
 * keeps is a safe integer (timestamps are bounded far below 2^53, see timestamps.ts).
 */
export function connectPg(url: string, max = 4): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (x: number) => String(x),
        parse: (x: string) => Number(x),
      },
    },
  });
}

/** Applies the migrations newer than the database's version; returns the versions applied. */
export async function migratePg(sql: Sql, migrations?: Migration[]): Promise<number[]> {
  migrations ??= await loadMigrations(PG_MIGRATIONS_DIR);
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied bigint NOT NULL)`;
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await sql.begin(async (tx) => {
      // Two Parleys starting on one database: the second waits, then sees the version applied.
      await tx`LOCK TABLE schema_migrations IN EXCLUSIVE MODE`;
      const [row] = await tx`SELECT 1 AS x FROM schema_migrations WHERE version = ${m.version}`;
      if (row) return false;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, name, applied)
        VALUES (${m.version}, ${m.name}, ${Date.now()})`;
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}

/**
 * A string PostgreSQL can hold: its text type refuses NUL, which hostile IRC servers and search
 * input may contain; it becomes U+FFFD (SQLite keeps it), so the message is kept, not dropped.
 */
export function pgString(s: string): string {
  return s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s;
}
