/**
 * The PostgreSQL store: every table group of `Store` over one connection pool. Chosen by
 * PARLEY_DATABASE_URL; several Parley nodes can share one database (cluster/).
 */
import type { Store, StoreBackend } from "../mod.ts";
import { connectPg, migratePg, type Sql } from "./db.ts";
import { type PgMessageStore, pgMessageStore } from "./messages.ts";
import { CONVERSATIONS_CHANGED, IGNORES_CHANGED, pgTables, USERS_CHANGED } from "./tables.ts";
import { tableGroups } from "../tables/mod.ts";
import { pgConversationStore } from "./conversations.ts";
import { pgFileContents } from "./files.ts";
import { copyIntoPg } from "./copy.ts";
import { pgFailure } from "./failure.ts";
import { UNREAD_LOWERED, UNREAD_SET } from "./unread.ts";
import { answered, unanswered } from "./unanswered.ts";
import { spoolDir } from "./spool.ts";
import { fullDiskWaits } from "../full_disk.ts";
import { isDiskFull } from "../failures.ts";
import { log } from "../../lib/log.ts";

/** Connections of the pool: the batched writer takes one, requests and IRC the others. */
const POOL = 10;

/** The PostgreSQL store, with the pool it runs on (the cluster code shares it). */
export interface PgStore extends Store {
  messages: PgMessageStore;
  sql: Sql;
  /** The database URL (for the cluster's own sessions). */
  url: string;
}

/**
 * Connects to `url`, applies the migrations and returns the store. With the data folder `home`,
 * messages a stop could not store are kept there (`messages.storeHeld` stores them).
 */
export async function openPgStore(url: string, home?: string): Promise<PgStore> {
  const sql = connectPg(url, POOL);
  try {
    await migratePg(sql);
  } catch (err) {
    await sql.end();
    throw err;
  }
  const messages = pgMessageStore(sql, home === undefined ? undefined : spoolDir(home));
  const executor = pgTables(sql);
  const tables = tableGroups(executor, pgFileContents(sql));
  const { users, ignores } = tables;
  const conversations = pgConversationStore(sql, executor, messages.flush, messages.unread);
  /**
   * The stored counts of the conversations the writer counts, read again when the listen is made
   * again: a count set while this node was not listening (a restart of PostgreSQL) was told to
   * nobody. Everything taken so far is committed first, so the stored counts include it.
   */
  const unreadAgain = () => {
    const ids = messages.unread.known();
    if (!ids.length) return;
    messages.flush()
      .then(() =>
        sql<{ id: number; unread: number }[]>`SELECT id, unread FROM conversations
          WHERE id = ANY(${ids}::bigint[])`
      )
      .then((rows) => messages.unread.set(rows.map((r) => [r.id, r.unread])))
      .catch((err) => log.warn("unread counts not read again", { error: String(err) }));
  };
  // Other nodes' changes reload the caches keyed on the generations (irc/chat/record.ts). The
  // client listens again by itself after the database went away (a restart), and a change told
  // meanwhile reached nobody: each (re)listen reloads the caches too.
  const listening = [
    await sql.listen(USERS_CHANGED, () => users.bump(), () => users.bump()),
    await sql.listen(CONVERSATIONS_CHANGED, () => conversations.bump(), () => conversations.bump()),
    await sql.listen(IGNORES_CHANGED, () => ignores.bump(), () => ignores.bump()),
    await sql.listen(UNREAD_SET, (payload) => messages.unread.told(payload), () => unreadAgain()),
    await sql.listen(UNREAD_LOWERED, (payload) => messages.unread.toldLowered(payload)),
  ];
  let closed = false;
  /** One wait for the database to answer, shared by everyone waiting. */
  let answering: Promise<boolean> | undefined;
  const fullDisk = fullDiskWaits();
  return {
    sql,
    url,
    ...tables,
    conversations,
    messages,
    backend: pgBackend,
    recovery(err) {
      if (isDiskFull(pgFailure(err) ?? err)) return fullDisk.recovery();
      if (!unanswered(err)) return undefined;
      answering ??= answered(sql, () => closed).finally(() => answering = undefined);
      return { retry: answering, waitingFor: "the database to answer" };
    },
    async close() {
      closed = true;
      fullDisk.close();
      for (const l of listening) {
        // why: the connections end just below, which ends every LISTEN the server still holds
        await l.unlisten().catch(() => {});
      }
      await messages.close(); // the batched writer's last turn
      // What can still be running now is a try of a database that does not answer: it is not
      // waited for long.
      await sql.end({ timeout: 2 });
    },
  };
}

/**
 * PostgreSQL: one database that several daemons can share (each a node, cluster/), and the target
 * of `parley store copy`.
 */
export const pgBackend: StoreBackend = {
  name: "postgres",
  open: (home, url) => {
    if (!url) throw new TypeError("PostgreSQL needs a database URL");
    return openPgStore(url, home);
  },
  clustered: true,
  failure: pgFailure,
  async copyInto(url, source, progress) {
    // A few connections: the rows go in one batch at a time, file contents one chunk at a time.
    const sql = connectPg(url, 4);
    try {
      return await copyIntoPg(sql, source, progress);
    } finally {
      await sql.end();
    }
  },
};

/** The store as PostgreSQL's, for what is built on its pool (cluster/); throws for another's. */
export function pgStoreOf(store: Store): PgStore {
  if (store.backend !== pgBackend) {
    throw new TypeError(`a ${store.backend.name} store is not PostgreSQL's`);
  }
  return store as PgStore;
}
