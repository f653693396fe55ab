/**
 * SQLite's message store on its own (no daemon): parley.db at `dbPath`, migrated, its search
 * index at `searchPath` and the indexer's worker, as store/sqlite/mod.ts wires them. Foreign keys
 * are off, so that messages need no conversation row.
 */
import { openDatabase } from "../../store/sqlite/db.ts";
import { migrate, sqliteMigrations } from "../../store/sqlite/migrate.ts";
import {
  type IndexerPace,
  openSearch,
  startSearchIndexer,
} from "../../store/sqlite/search_index.ts";
import { sqliteMessageStore } from "../../store/sqlite/messages/mod.ts";

export async function openMessageStore(dbPath: string, searchPath: string, pace?: IndexerPace) {
  const db = openDatabase(dbPath);
  migrate(db, await sqliteMigrations());
  db.exec("PRAGMA foreign_keys = OFF"); // rows of a conversation that is not there
  const searchDb = await openSearch(searchPath, 1, 0);
  const indexer = startSearchIndexer(dbPath, searchPath, 0, false, pace);
  const parts = sqliteMessageStore(db, searchDb, indexer, indexer);
  return {
    db,
    indexer,
    messages: parts.messages,
    /** Closes the store, the indexer and both databases. */
    async close() {
      await parts.close();
      await indexer.close();
      searchDb.close();
      db.close();
    },
  };
}
