/**
 * The store's contract: one object holding every table group's interface, and the backend it runs
 * on. Routes and IRC see only this; each backend is a folder beside it (sqlite/, pg/) that
 * implements it, listed in backends.ts, and the same tests run against every one
 * (tests/support/backends.ts).
 */
import type { UserStore } from "./users.ts";
import type { SessionStore } from "./sessions.ts";
import type { AppTokenStore } from "./app_tokens.ts";
import type { CertfpStore } from "./certfp.ts";
import type { SettingsStore } from "./settings.ts";
import type { ProfileStore } from "./profiles.ts";
import type { ConnectionStore } from "./connections.ts";
import type { MessageStore } from "./message_types.ts";
import type { ConversationStore } from "./conversations.ts";
import type { FileStore } from "./files.ts";
import type { PushStore } from "./push.ts";
import type { IgnoreStore } from "./ignores.ts";
import type { CopyReport, CopySource } from "./copy.ts";
import type { DomainError } from "../lib/errors.ts";
import { BACKENDS } from "./backends.ts";

/** Every table group of Parley's storage. Async so that any database can implement it. */
export interface Store {
  users: UserStore;
  sessions: SessionStore;
  appTokens: AppTokenStore;
  /** Client certificates users log in to the listener with (SASL EXTERNAL). */
  certfp: CertfpStore;
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

  /** The backend this store runs on, with what only some backends can do. */
  readonly backend: StoreBackend;

  /**
   * For an error worth waiting out (the database not answering while it restarts, a disk full
   * for a while: store/full_disk.ts), the wait before trying again. Undefined for any other
   * error: nothing to wait out. Callers that must not lose what they were storing wait and try
   * again (store/patient.ts).
   */
  recovery(err: unknown): Recovery | undefined;

  /** Flushes pending writes and closes the database. */
  close(): Promise<void>;
}

/** A wait before a failed call is made again. */
export interface Recovery {
  /** True once worth trying again; false when the store closes first. */
  retry: Promise<boolean>;
  /** What is waited for, as the log says it ("the database to answer", "room on the disk"). */
  waitingFor: string;
}

/**
 * A backend: how its stores open, and the capabilities that differ between backends. Callers ask
 * for a capability, never for which backend it is; one that is absent is not offered.
 */
export interface StoreBackend {
  /** Its name in messages and test names ("sqlite", "postgres"). */
  readonly name: string;
  /** Opens the store: in the data folder `home`, or in the database at `url`. */
  open(home: string, url?: string): Promise<Store>;
  /**
   * Several daemons may share one database of this backend: each then runs as a node of a
   * cluster (cluster/), over the store's own connection.
   */
  readonly clustered: boolean;
  /**
   * The DomainError for an error of this backend's database that is the database's own failure
   * (a full disk, a database not answering: store/failures.ts), else undefined. The edge answers
   * it with 503 instead of an internal error.
   */
  failure(err: unknown): DomainError | undefined;
  /** Reads an installation's tables (the data folder `home`) to copy them into another backend. */
  copySource?(home: string): CopySource;
  /** Copies `source` into the empty database at `url` (`parley store copy`). */
  copyInto?(
    url: string,
    source: CopySource,
    progress?: (table: string, rows: number) => void,
  ): Promise<CopyReport>;
}

/** The URL schemes a database URL may have (`PARLEY_DATABASE_URL`). */
export const DATABASE_SCHEMES = BACKENDS.flatMap((b) => b.schemes);

/** The backend for a database URL: its scheme's, or the default one when none is given. */
export async function storeBackend(databaseUrl?: string): Promise<StoreBackend> {
  const scheme = databaseUrl === undefined || databaseUrl === ""
    ? undefined
    : /^([a-z][a-z0-9+.-]*):\/\//i.exec(databaseUrl)?.[1].toLowerCase() ?? "";
  const entry = BACKENDS.find((b) =>
    scheme === undefined ? b.schemes.length === 0 : b.schemes.includes(scheme)
  );
  if (!entry) throw new TypeError("the database URL names no backend Parley has");
  return await entry.load();
}

/**
 * Opens the store: the database at `databaseUrl` when given, else SQLite in the data folder
 * `home`.
 */
export async function openStore(home: string, databaseUrl?: string): Promise<Store> {
  return await (await storeBackend(databaseUrl)).open(home, databaseUrl);
}
