/** The SQLite installation (parley.db and files/) read out for a copy into another backend. */
import { join } from "node:path";
import type { CopySource } from "../copy.ts";
import { openDatabase } from "./db.ts";

/** SQLite's own bookkeeping, which no other backend needs. */
const SQLITE_ONLY = new Set(["schema_migrations", "message_ids", "message_deletions"]);

/** Reads the data folder `home`: its database's tables and the files kept on disk. */
export function sqliteCopySource(home: string): CopySource {
  const db = openDatabase(join(home, "parley.db"));
  const filesDir = join(home, "files");
  return {
    name: "SQLite",
    tables: () =>
      (db.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      ).all() as { name: string }[]).map((r) => r.name).filter((t) => !SQLITE_ONLY.has(t)),
    columns: (table) =>
      (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((r) => r.name),
    rows: (table, columns) =>
      db.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM "${table}"`)
        .iterate() as Iterable<Record<string, unknown>>,
    count: (table) => (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n,
    async fileContents(file) {
      try {
        return (await Deno.open(join(filesDir, String(file.user_id), file.file_id))).readable;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return undefined;
        throw err;
      }
    },
    close: () => db.close(),
  };
}
