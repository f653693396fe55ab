/** Opens the SQLite database with the pragmas Parley relies on, in files only its owner can read. */
import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import { log } from "../../lib/log.ts";

/**
 * Creates a database file with mode 0600 when it is missing, and narrows an existing one (and
 * its -wal and -shm) to 0600. SQLite would create it with the umask's mode (usually 0644), and
 * gives the -wal and -shm files the mode of the database file.
 */
export function makePrivate(path: string): void {
  Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 }).close();
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      if ((Deno.statSync(path + suffix).mode ?? 0) & 0o077) Deno.chmodSync(path + suffix, 0o600);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
}

/** Warns when the data folder may be read by its group or by everyone. */
function warnIfShared(dir: string): void {
  const mode = Deno.statSync(dir).mode ?? 0;
  if (mode & 0o055) {
    log.warn("the data folder is readable by others; chmod 700 it", {
      folder: dir,
      mode: (mode & 0o777).toString(8),
    });
  }
}

/**
 * Opens (creating if needed) the database at `path` in WAL mode with foreign keys on. The file is
 * private to Parley's user, and a data folder others can read is reported.
 */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ":memory:") {
    warnIfShared(dirname(path));
    makePrivate(path);
  }
  const db = new DatabaseSync(path);
  // WAL lets readers run while the batched writer commits; NORMAL sync is safe under WAL.
  // Checkpoints are the search indexer's job (off the event loop); the automatic one here is a
  // backstop for a WAL that never gets a quiet moment to be reset. The page cache is 16 MB: the
  // hot pages (recent messages, index tops) fit, and the OS page cache and mmap hold the rest;
  // 128 MB per connection only ever grew the process (docs/performance.md, "IRC bursts"). The map
  // is 256 MB: a page read through it stays in the process's resident size, and history and
  // search read no slower than with 2 GB (docs/performance.md, "Mapped pages").
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 5000;
    PRAGMA temp_store = MEMORY;
    PRAGMA cache_size = -16384;
    PRAGMA mmap_size = 268435456;
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
    rollback(db);
    throw err;
  }
}

/**
 * Rolls back the transaction under way, if there still is one: on a full disk (and some I/O
 * errors) SQLite has rolled it back already, and a ROLLBACK then throws "no transaction is active"
 * in place of the error that says what happened.
 */
export function rollback(db: DatabaseSync, sql = "ROLLBACK"): void {
  if (db.isTransaction) db.exec(sql);
}

/**
 * Whether `err` says the disk (or the file system under the database) could not take a write:
 * SQLITE_FULL, or an I/O error (SQLITE_IOERR and its extended codes). Nothing in the rows is wrong;
 * writing them again later may work. A statement's error carries the code; one of `exec` (a
 * COMMIT that could not write the log) only SQLite's message for it.
 */
export function diskFailed(err: unknown): boolean {
  const code = (err as { errcode?: unknown })?.errcode;
  if (typeof code === "number") return (code & 0xff) === 13 || (code & 0xff) === 10;
  return /^(?:database or disk is full|disk I\/O error)/.test((err as Error)?.message ?? "");
}
