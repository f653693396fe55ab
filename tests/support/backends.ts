/**
 * The store's one test suite runs against every backend: `forEachStore` (every table group) and
 * `forEachBackend` (the message store) register each test once per entry of BACKENDS, so that a
 * difference in paging, timestamps, unread counts or search fails a test. A new backend is one
 * more entry: how to open a fresh store of it, and how to drop it.
 */
import type { Store } from "../../store/mod.ts";
import type { MessageSearch, MessageStore } from "../../store/message_types.ts";
import { sqliteBackend } from "../../store/sqlite/mod.ts";
import { pgBackend, type PgStore } from "../../store/pg/mod.ts";
import { type PgServer, startPostgres } from "./postgres.ts";

/** A fresh, empty store of one backend, and how to drop it after the test. */
interface OpenedStore {
  store: Store;
  /** Closes the store and removes what it stored. */
  drop(): Promise<void>;
  /**
   * Leaves `n` message ids unused, where the backend's search reads ids in ranges (PostgreSQL's
   * buckets of 65,536, which a test this size would not otherwise cross). Waits for the appends
   * under way first.
   */
  skipIds(n: number): Promise<void>;
}

/** One backend as the tests open it. */
interface TestBackend {
  name: "sqlite" | "postgres";
  open(): Promise<OpenedStore>;
  /** Called after the file's last test of this backend (stops a server the backend started). */
  done?(): Promise<void>;
}

let server: Promise<PgServer> | undefined;

/** Every backend of the store; each test of the suite runs once per entry. */
const BACKENDS: TestBackend[] = [
  {
    name: "sqlite",
    async open() {
      const home = await Deno.makeTempDir({ prefix: "parley-store-" });
      const store = await sqliteBackend.open(home);
      return {
        store,
        async drop() {
          await store.close();
          await Deno.remove(home, { recursive: true });
        },
        // SQLite's search reads no ranges of ids; they may stay consecutive.
        skipIds: () => store.messages.flush(),
      };
    },
  },
  {
    // One server per test file, started by its first test; a database of its own per test.
    name: "postgres",
    async open() {
      server ??= startPostgres();
      const store = await pgBackend.open("", await (await server).database()) as PgStore;
      return {
        store,
        drop: () => store.close(),
        async skipIds(n) {
          await store.messages.flush();
          await store.sql`SELECT setval('messages_id_seq', nextval('messages_id_seq') + ${n})`;
        },
      };
    },
    async done() {
      if (server) await (await server).close();
      server = undefined;
    },
  },
];

/** Tests still to run per backend in this file, so `done` runs after the last. */
const pending = new Map<string, number>();

/** Registers `fn` once per backend, as `name [backend]`. */
function perBackend(
  name: string,
  fn: (opened: OpenedStore, b: TestBackend, t: Deno.TestContext) => Promise<void>,
) {
  for (const b of BACKENDS) {
    pending.set(b.name, (pending.get(b.name) ?? 0) + 1);
    Deno.test(`${name} [${b.name}]`, async (t) => {
      try {
        const opened = await b.open();
        try {
          await fn(opened, b, t);
        } finally {
          await opened.drop();
        }
      } finally {
        const left = pending.get(b.name)! - 1;
        pending.set(b.name, left);
        if (left === 0) await b.done?.();
      }
    });
  }
}

/** A message store and the rows it hangs off, whatever the backend. */
export interface Backend {
  name: "sqlite" | "postgres";
  messages: MessageStore & { readonly search: MessageSearch };
  /** A new user; returns its id. */
  user(email: string): Promise<number>;
  /** A connection of the user (`connectionId` as the API names it); returns its row id. */
  connection(userId: number, connectionId: string): Promise<number>;
  /** A conversation of the connection (casefolded id); returns its row id. */
  conversation(connection: number, conversationId: string): Promise<number>;
  /** The conversation's stored unread count. */
  unread(conversation: number): Promise<number>;
  /** See OpenedStore.skipIds. */
  skipIds(n: number): Promise<void>;
  /**
   * Resolves once everything appended is committed and searchable. A search itself waits for
   * SQLite's indexer only a bounded time (2 s) and then answers from what is indexed; the indexer
   * runs below the process's priority, so on a loaded machine a test must wait here instead.
   */
  searchable(): Promise<void>;
}

/**
 * A connection of `userId` that stays down (nothing dials out), for tests of what is stored:
 * irc-localhost named localhost unless told otherwise.
 */
export function idleConnection(
  store: Pick<Store, "connections">,
  userId: number,
  connectionId = "irc-localhost",
  name = "localhost",
) {
  return store.connections.create({
    userId,
    connectionId,
    name,
    url: "irc://127.0.0.1:6667?nick=me",
    onConnectCommands: [],
    wantedState: "disconnected",
  });
}

/** The message store's side of the suite: `b` over a fresh store of each backend. */
export function forEachBackend(
  name: string,
  fn: (b: Backend, t: Deno.TestContext) => Promise<void>,
) {
  perBackend(name, async ({ store, skipIds }, backend, t) => {
    if (!store.messages.search) throw new Error(`${backend.name}: these tests need search`);
    const connectionOf = new Map<number, number>();
    await fn({
      name: backend.name,
      messages: store.messages as Backend["messages"],
      user: async (email) => (await store.users.create(email, "x", [])).id,
      connection: async (userId, connectionId) =>
        (await idleConnection(store, userId, connectionId, connectionId)).id,
      async conversation(connection, conversationId) {
        const { id } = await store.conversations.ensure(connection, conversationId, conversationId);
        connectionOf.set(id, connection);
        return id;
      },
      async unread(conversation) {
        const rows = await store.conversations.listForConnection(connectionOf.get(conversation)!);
        return rows.find((r) => r.id === conversation)!.unread;
      },
      skipIds,
      async searchable() {
        await store.messages.flush();
        await store.messages.searchable?.();
      },
    }, t);
  });
}

/** The whole store's side of the suite: every table group, over a fresh store of each backend. */
export function forEachStore(
  name: string,
  fn: (store: Store, backend: "sqlite" | "postgres", t: Deno.TestContext) => Promise<void>,
) {
  perBackend(name, ({ store }, backend, t) => fn(store, backend.name, t));
}
