/**
 * The store's one test suite runs against every backend: `forEachStore` (every table group) and
 * `forEachBackend` (the message store) register each test once per backend of the registry
 * (store/backends.ts), so that a difference in paging, timestamps, unread counts or search fails a
 * test. A new backend needs nothing here: each test opens it in a fresh data folder, or in a fresh
 * database of the server its entry names.
 */
import type { Store } from "../../store/mod.ts";
import { type BackendEntry, BACKENDS } from "../../store/backends.ts";
import type { MessageSearch, MessageStore } from "../../store/message_types.ts";
import type { PgStore } from "../../store/pg/mod.ts";
import { type StartedServer, TEST_SERVERS } from "./test_backend.ts";

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

/**
 * The servers tests make databases in (a backend's entry names its kind, `testServer`): one per
 * test file, started by its first test.
 */
const started = new Map<string, Promise<StartedServer>>();

/**
 * How a backend whose search reads ids in ranges leaves ids unused; a backend not listed reads no
 * ranges, and its ids may stay consecutive.
 */
const SKIP_IDS: Record<string, (store: Store, n: number) => Promise<void>> = {
  async postgres(store, n) {
    await (store as PgStore)
      .sql`SELECT setval('messages_id_seq', nextval('messages_id_seq') + ${n})`;
  },
};

/** A fresh store of `entry`: in a new data folder, and a new database of its server if it has one. */
async function openFresh(entry: BackendEntry): Promise<OpenedStore> {
  const kind = entry.testServer;
  let url: string | undefined;
  if (kind) {
    if (!started.has(kind)) started.set(kind, TEST_SERVERS[kind].start());
    url = await (await started.get(kind)!).database();
  }
  const home = await Deno.makeTempDir({ prefix: "parley-store-" });
  const store = await (await entry.load()).open(home, url);
  return {
    store,
    async drop() {
      await store.close();
      await Deno.remove(home, { recursive: true });
    },
    async skipIds(n) {
      await store.messages.flush();
      await SKIP_IDS[entry.name]?.(store, n);
    },
  };
}

/** Stops the server `kind`, after the file's last test on it. */
async function done(kind: string): Promise<void> {
  const server = started.get(kind);
  if (!server) return;
  started.delete(kind);
  await (await server).close();
}

/** Tests still to run per test server in this file, so `done` stops it after the last. */
const pending = new Map<string, number>();

/** Registers `fn` once per backend, as `name [backend]`. */
function perBackend(
  name: string,
  fn: (opened: OpenedStore, b: BackendEntry, t: Deno.TestContext) => Promise<void>,
) {
  for (const b of BACKENDS) {
    const kind = b.testServer;
    if (kind) pending.set(kind, (pending.get(kind) ?? 0) + 1);
    Deno.test(`${name} [${b.name}]`, async (t) => {
      try {
        const opened = await openFresh(b);
        try {
          await fn(opened, b, t);
        } finally {
          await opened.drop();
        }
      } finally {
        if (kind) {
          const left = pending.get(kind)! - 1;
          pending.set(kind, left);
          if (left === 0) await done(kind);
        }
      }
    });
  }
}

/** A message store and the rows it hangs off, whatever the backend. */
export interface Backend {
  name: string;
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
  fn: (store: Store, backend: string, t: Deno.TestContext) => Promise<void>,
) {
  perBackend(name, ({ store }, backend, t) => fn(store, backend.name, t));
}
