/** Numbered SQL migrations, applied in order at start, each inside its own transaction. */
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./db.ts";

/** One migration file: `NNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The folder of the migration files; `scripts/compile.ts` embeds it. */
export const MIGRATIONS_DIR = `${import.meta.dirname}/migrations`;

/** Reads the migration files of a folder, ordered by their number. */
export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const out: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const m = /^(\d+)_([\w-]+)\.sql$/.exec(entry.name);
    if (!entry.isFile || !m) continue;
    out.push({
      version: Number(m[1]),
      name: m[2],
      sql: await Deno.readTextFile(`${dir}/${entry.name}`),
    });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++) {
    if (out[i].version === out[i - 1].version) {
      throw new Error(`two migrations numbered ${out[i].version}`);
    }
  }
  return out;
}

/** Applies the migrations newer than the database's version; returns the versions applied. */
export function migrate(db: DatabaseSync, migrations: Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL) STRICT`);
  const row = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as {
    v: number | null;
  };
  const current = row.v ?? 0;
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
  return applied;
}
