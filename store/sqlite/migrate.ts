/** Numbered SQL migrations, applied in order at start, each inside its own transaction. */
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./db.ts";
import { loadMigrations, logMigrated, type Migration, refuseNewer } from "../migration_files.ts";

/** The folder of SQLite's migration files; `scripts/compile.ts` embeds it. */
const MIGRATIONS_DIR = `${import.meta.dirname}/migrations`;

/** SQLite's migrations, ordered by their number. */
export function sqliteMigrations(): Promise<Migration[]> {
  return loadMigrations(MIGRATIONS_DIR);
}

/**
 * Applies the migrations newer than the database's version; returns the versions applied. Throws
 * (a ConfigError) for a database migrated by a newer Parley.
 */
export function migrate(db: DatabaseSync, migrations: Migration[]): number[] {
  const started = performance.now();
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL) STRICT`);
  const row = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as {
    v: number | null;
  };
  const current = row.v ?? 0;
  refuseNewer(current, migrations);
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= current) continue;
    transaction(db, () => {
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)")
        .run(m.version, m.name, Date.now());
    });
    applied.push(m.version);
  }
  logMigrated(current, applied, performance.now() - started);
  return applied;
}
