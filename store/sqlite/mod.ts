/**
 * The SQLite backend: `parley.db` in the data folder for every table group, `search.db` beside it
 * for the search index (its own database, filled by a worker), uploaded files on disk.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { openDatabase } from "./db.ts";
import { fullDiskWaits } from "../full_disk.ts";
import { isDiskFull } from "../failures.ts";
import { sqliteFailure } from "./failure.ts";
import { migrate, sqliteMigrations } from "./migrate.ts";
import { sqliteTables } from "./tables.ts";
import { tableGroups } from "../tables/mod.ts";
import { type SqliteMessageStore, sqliteMessageStore } from "./messages/mod.ts";
import { sqliteConversationStore } from "./conversations.ts";
import { sqliteFileContents } from "./files.ts";
import type { Store, StoreBackend } from "../mod.ts";
import { sqliteCopySource } from "./copy_source.ts";
import {
  openSearch,
  searchBehind,
  type SearchIndexer,
  startSearchIndexer,
} from "./search_index.ts";
import type { Checkpointer } from "./checkpointer.ts";

/** The SQLite store, whose message store also says when the search index has caught up. */
export interface SqliteStore extends Store {
  messages: SqliteMessageStore;
}

/**
 * Opens `parley.db` in the data folder, applies migrations, opens the search index
 * (`search.db`, a database of its own), starts its indexing worker, and returns the store.
 */
export async function openSqliteStore(home: string): Promise<SqliteStore> {
  const dbPath = join(home, "parley.db");
  const searchPath = join(home, "search.db");
  const db = openDatabase(dbPath);
  migrate(db, await sqliteMigrations());
  const next = (db.prepare("SELECT next FROM message_ids").get() as { next: number }).next;
  const deletions = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM message_deletions")
    .get() as { seq: number };
  const searchDb = await openSearch(searchPath, next, deletions.seq);
  const indexer = startSearchIndexer(
    dbPath,
    searchPath,
    next - 1,
    searchBehind(searchDb, next, deletions.seq),
  );
  // The indexer's worker also checkpoints parley.db (one thread, one JavaScript engine).
  return sqliteStore(db, searchDb, indexer, indexer, join(home, "files"));
}

/** Builds the SQLite store over open databases; `filesDir` holds uploaded files. */
function sqliteStore(
  db: DatabaseSync,
  searchDb: DatabaseSync,
  indexer: SearchIndexer,
  checkpointer: Checkpointer,
  filesDir: string,
): SqliteStore {
  const history = sqliteMessageStore(db, searchDb, indexer, checkpointer);
  // One executor: its transactions take turns on the one connection.
  const tables = sqliteTables(db);
  const fullDisk = fullDiskWaits();
  return {
    ...tableGroups(tables, sqliteFileContents(filesDir)),
    conversations: sqliteConversationStore(db, {
      commit: history.commit,
      unread: history.unreadPending,
    }, tables),

    // history
    messages: history.messages,

    backend: sqliteBackend,
    // The database is a file here: it always answers. A full disk is waited out for a while
    // (the messages themselves are the writer's to hold).
    recovery: (err) => isDiskFull(sqliteFailure(err) ?? err) ? fullDisk.recovery() : undefined,

    async close() {
      fullDisk.close();
      await history.close(); // the batched writer's last turn
      // What it has not indexed yet, it indexes at the next start; closing the last connection
      // (below) checkpoints the WAL.
      await indexer.close();
      db.exec("PRAGMA optimize");
      db.close();
      searchDb.close();
    },
  };
}

/** SQLite: one machine, the data folder's databases; an installation can be copied out of it. */
export const sqliteBackend: StoreBackend = {
  name: "sqlite",
  open: (home) => openSqliteStore(home),
  clustered: false,
  failure: sqliteFailure,
  copySource: (home) => sqliteCopySource(home),
};
