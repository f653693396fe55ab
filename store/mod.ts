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
import { sqliteMessageStore } from "./messages.ts";
import { type ConversationStore, sqliteConversationStore } from "./conversations.ts";
import { type FileStore, sqliteFileStore } from "./files.ts";

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

  /** Flushes pending writes and closes the database. */
  close(): Promise<void>;
}

/** Opens `parley.db` in the data folder, applies migrations, and returns the store. */
export async function openStore(home: string): Promise<Store> {
  const db = openDatabase(join(home, "parley.db"));
  migrate(db, await loadMigrations());
  return sqliteStore(db, join(home, "files"));
}

/** Builds the SQLite store over an open, migrated database; `filesDir` holds uploaded files. */
export function sqliteStore(db: DatabaseSync, filesDir?: string): Store {
  const messages = sqliteMessageStore(db);
  return {
    users: sqliteUserStore(db),
    sessions: sqliteSessionStore(db),
    settings: sqliteSettingsStore(db),
    profiles: sqliteProfileStore(db),
    // irc
    connections: sqliteConnectionStore(db),
    conversations: sqliteConversationStore(db),

    // history
    messages,

    // outside world
    files: sqliteFileStore(db, filesDir),

    close() {
      messages.dispose(); // the batched writer's last turn; no index tidying after this
      db.exec("PRAGMA optimize");
      db.close();
      return Promise.resolve();
    },
  };
}
