/**
 * The message store's backends side by side: the same test runs against SQLite and against a
 * real PostgreSQL (one server per test file, started by its first test, stopped after its last),
 * so that a difference in paging, timestamps, unread counts or search fails a test.
 */
import { openSqliteStore, type Store } from "../../store/mod.ts";
import { openPgStore } from "../../store/pg/mod.ts";
import type { MessageSearch, MessageStore } from "../../store/message_types.ts";
import { openPgMessageStore } from "../../store/pg/messages.ts";
import { connectPg } from "../../store/pg/db.ts";
import { type PgServer, startPostgres } from "./postgres.ts";

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
  /**
   * Leaves `n` message ids unused (PostgreSQL: its search reads ids in buckets of 65,536, which a
   * test this size would not otherwise cross). Waits for the appends under way first.
   */
  skipIds(n: number): Promise<void>;
  close(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const home = await Deno.makeTempDir({ prefix: "parley-backend-" });
  const store = await openSqliteStore(home);
  const connectionOf = new Map<number, number>();
  return {
    name: "sqlite",
    messages: store.messages,
    user: async (email) => (await store.users.create(email, "x", [])).id,
    connection: async (userId, connectionId) =>
      (await store.connections.create({
        userId,
        connectionId,
        name: connectionId,
        url: "irc://127.0.0.1:6667?nick=me",
        onConnectCommands: [],
        wantedState: "disconnected",
      })).id,
    async conversation(connection, conversationId) {
      const { id } = await store.conversations.ensure(connection, conversationId, conversationId);
      connectionOf.set(id, connection);
      return id;
    },
    async unread(conversation) {
      const rows = await store.conversations.listForConnection(connectionOf.get(conversation)!);
      return rows.find((r) => r.id === conversation)!.unread;
    },
    // SQLite's search reads no buckets; its ids may stay consecutive.
    skipIds: (_n) => store.messages.flush(),
    async close() {
      await store.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

let server: Promise<PgServer> | undefined;
let pgTests = 0;

async function pgBackend(): Promise<Backend> {
  server ??= startPostgres();
  const url = await (await server).database();
  const messages = await openPgMessageStore(url);
  const sql = connectPg(url, 1);
  const id = (rows: { id: number }[]) => rows[0].id;
  return {
    name: "postgres",
    messages,
    user: async (email) => id(await sql`INSERT INTO users (email) VALUES (${email}) RETURNING id`),
    connection: async (userId, connectionId) =>
      id(
        await sql`INSERT INTO connections (user_id, connection_id)
          VALUES (${userId}, ${connectionId}) RETURNING id`,
      ),
    conversation: async (connection, conversationId) =>
      id(
        await sql`INSERT INTO conversations (connection, conversation_id)
          VALUES (${connection}, ${conversationId}) RETURNING id`,
      ),
    unread: async (conversation) =>
      (await sql`SELECT unread FROM conversations WHERE id = ${conversation}`)[0].unread,
    async skipIds(n) {
      await messages.flush();
      await sql`SELECT setval('messages_id_seq', nextval('messages_id_seq') + ${n})`;
    },
    async close() {
      await messages.close();
      await sql.end();
    },
  };
}

/**
 * Registers `fn` as one test per backend (`name [sqlite]`, `name [postgres]`). PostgreSQL starts
 * with the file's first such test and stops after its last.
 */
export function forEachBackend(
  name: string,
  fn: (b: Backend, t: Deno.TestContext) => Promise<void>,
) {
  Deno.test(`${name} [sqlite]`, async (t) => {
    const b = await sqliteBackend();
    try {
      await fn(b, t);
    } finally {
      await b.close();
    }
  });
  pgTests++;
  Deno.test(`${name} [postgres]`, async (t) => {
    try {
      const b = await pgBackend();
      try {
        await fn(b, t);
      } finally {
        await b.close();
      }
    } finally {
      if (--pgTests === 0 && server) await (await server).close();
    }
  });
}

/**
 * Registers `fn` as one test per backend over a whole `Store` (every table group): SQLite in a
 * temporary folder, and PostgreSQL (a database of its own on the file's server).
 */
export function forEachStore(
  name: string,
  fn: (store: Store, backend: "sqlite" | "postgres", t: Deno.TestContext) => Promise<void>,
) {
  Deno.test(`${name} [sqlite]`, async (t) => {
    const home = await Deno.makeTempDir({ prefix: "parley-store-" });
    const store = await openSqliteStore(home);
    try {
      await fn(store, "sqlite", t);
    } finally {
      await store.close();
      await Deno.remove(home, { recursive: true });
    }
  });
  pgTests++;
  Deno.test(`${name} [postgres]`, async (t) => {
    try {
      server ??= startPostgres();
      const store = await openPgStore(await (await server).database());
      try {
        await fn(store, "postgres", t);
      } finally {
        await store.close();
      }
    } finally {
      if (--pgTests === 0 && server) await (await server).close();
    }
  });
}
