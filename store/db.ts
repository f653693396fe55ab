/** Opens the SQLite database with the pragmas Parley relies on. */
import { DatabaseSync } from "node:sqlite";

/** Opens (creating if needed) the database at `path` in WAL mode with foreign keys on. */
export function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  // WAL lets readers run while the batched writer commits; NORMAL sync is safe under WAL.
  // Checkpoints are the search indexer's job (off the event loop); the automatic one here is a
  // backstop for a WAL that never gets a quiet moment to be reset.
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 5000;
    PRAGMA temp_store = MEMORY;
    PRAGMA cache_size = -131072;
    PRAGMA mmap_size = 2147418112;
    PRAGMA wal_autocheckpoint = 100000;
  `);
  return db;
}

/** Runs `fn` inside a transaction, rolling back when it throws. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}
