/** The store: one object holding every table group's interface. Routes and IRC see only this. */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { openDatabase } from "./db.ts";
import { loadMigrations, migrate } from "./migrate.ts";
import { sqliteUserStore, type UserStore } from "./users.ts";
import { type SessionStore, sqliteSessionStore } from "./sessions.ts";
import { type SettingsStore, sqliteSettingsStore } from "./settings.ts";
import { type ProfileStore, sqliteProfileStore } from "./profiles.ts";
import { type ConnectionStore, sqliteConnectionStore } from "./connections.ts";
import type { MessageStore } from "./message_types.ts";
import { type SqliteMessageStore, sqliteMessageStore } from "./messages/mod.ts";
import { type ConversationStore, sqliteConversationStore } from "./conversations.ts";
import { type FileStore, sqliteFileStore } from "./files.ts";
import { type PushStore, sqlitePushStore } from "./push.ts";
import { type IgnoreStore, sqliteIgnoreStore } from "./ignores.ts";
import { openSearch, type SearchIndexer, startSearchIndexer } from "./search_index.ts";
import type { Checkpointer } from "./checkpointer.ts";

/** Every table group of Parley's storage. Async so that another database can implement it. */
export interface Store {
  users: UserStore;
  sessions: SessionStore;
  settings: SettingsStore;
  profiles: ProfileStore;
  // irc: connections, conversations
  connections: ConnectionStore;
  conversations: ConversationStore;

  // history: messages, notifications
  messages: MessageStore;

  // outside world: files
  files: FileStore;
  push: PushStore;
  /** Who each user ignores. */
  ignores: IgnoreStore;

  /** Flushes pending writes and closes the database. */
  close(): Promise<void>;
}

/** The SQLite store, whose message store also says when the search index has caught up. */
export interface SqliteStore extends Store {
  messages: SqliteMessageStore;
}

/**
 * Opens the store: the PostgreSQL database at `databaseUrl` when given, else SQLite in the data
 * folder `home`.
 */
export async function openStore(home: string, databaseUrl?: string): Promise<Store> {
  if (databaseUrl) {
    // Loaded only when asked for, so a SQLite install never opens the PostgreSQL client.
    const { openPgStore } = await import("./pg/mod.ts");
    return await openPgStore(databaseUrl);
  }
  return await openSqliteStore(home);
}

/**
 * Opens `parley.db` in the data folder, applies migrations, opens the search index
 * (`search.db`, a database of its own), starts its indexing worker, and returns the store.
 */
export async function openSqliteStore(home: string): Promise<SqliteStore> {
  const dbPath = join(home, "parley.db");
  const searchPath = join(home, "search.db");
  const db = openDatabase(dbPath);
  migrate(db, await loadMigrations());
  const next = (db.prepare("SELECT next FROM message_ids").get() as { next: number }).next;
  const deletions = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM message_deletions")
    .get() as { seq: number };
  const searchDb = await openSearch(searchPath, next, deletions.seq);
  const indexer = startSearchIndexer(dbPath, searchPath, next - 1);
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
  return {
    users: sqliteUserStore(db),
    sessions: sqliteSessionStore(db),
    settings: sqliteSettingsStore(db),
    profiles: sqliteProfileStore(db),
    // irc
    connections: sqliteConnectionStore(db),
    conversations: sqliteConversationStore(db, history.commit),

    // history
    messages: history.messages,

    // outside world
    files: sqliteFileStore(db, filesDir),
    push: sqlitePushStore(db),
    ignores: sqliteIgnoreStore(db),

    async close() {
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
