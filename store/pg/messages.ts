/**
 * The PostgreSQL message store: the MessageStore core and the search capability (PostgreSQL's
 * own full-text search). The batched writer (writer.ts) appends; reads commit what is pending
 * first. Notifications are highlighted messages and a read marker (notifications.ts).
 */
import { parseMatch } from "../match.ts";
import type {
  MessageNotifications,
  MessageRetention,
  MessageSearch,
  MessageStore,
} from "../message_types.ts";
import { connectPg, migratePg, type Sql } from "./db.ts";
import { pgNotifications } from "./notifications.ts";
import { pgHistory } from "./history.ts";
import type { MessageHistory } from "../history_types.ts";
import { pgPages } from "./paging.ts";
import { pgUserSearch } from "./search.ts";
import { prefixesOf, toTsquery } from "./tsquery.ts";
import { pgVocabulary } from "./vocabulary.ts";
import { pgWriter } from "./writer.ts";
import { replaySpool, spoolDir } from "./spool.ts";
import type { UnreadCounts } from "./unread.ts";
import { pgRetention } from "./retention.ts";

/** The PostgreSQL message store, with search, and the pool it holds. */
export interface PgMessageStore extends MessageStore {
  readonly search: MessageSearch;
  readonly notifications: MessageNotifications;
  readonly history: MessageHistory;
  readonly retention: MessageRetention;
  /** The writer's unread counts (the conversation store tells it of counts it sets). */
  readonly unread: UnreadCounts;
  /** Waits for the appends under way (and, opened by openPgMessageStore, closes its pool). */
  close(): Promise<void>;
}

/** Connects to `url`, applies the migrations and returns the message store. */
export async function openPgMessageStore(url: string): Promise<PgMessageStore> {
  const sql = connectPg(url);
  try {
    await migratePg(sql);
  } catch (err) {
    await sql.end();
    throw err;
  }
  const store = pgMessageStore(sql);
  return {
    ...store,
    async close() {
      await store.close();
      await sql.end();
    },
  };
}

/**
 * The message store over a migrated database; with `spool`, what a close gives up is kept there
 * for the next start (store/pg/spool.ts).
 */
export function pgMessageStore(sql: Sql, spool?: string): PgMessageStore {
  const pages = pgPages(sql);
  const vocabulary = pgVocabulary(sql);
  const searchAll = pgUserSearch(sql, vocabulary);
  const writer = pgWriter(sql, vocabulary, spool);
  const settled = writer.flush;

  return {
    append: writer.append,
    flush: settled,
    async historyOf(conversation, q) {
      await settled();
      return pages.history(conversation, q);
    },
    async clear(conversation) {
      await settled();
      await sql`DELETE FROM messages WHERE conversation = ${conversation}`;
    },
    search: {
      async forUser(userId, q) {
        await settled();
        return searchAll(userId, q);
      },
      async inConversation(conversation, match, q) {
        await settled();
        const parsed = parseMatch(match);
        if (parsed.empty) return { messages: [] };
        if (parsed.fts === undefined) return pages.history(conversation, q); // only `#name`/`@nick`
        const expanded = await vocabulary.expand(prefixesOf(parsed.terms));
        return pages.matching(conversation, toTsquery(parsed.terms, false, expanded), q);
      },
    },
    notifications: pgNotifications(sql, settled),
    history: pgHistory(sql, settled, writer.unread),
    unread: writer.unread,
    retention: pgRetention(sql, writer.unread),
    close: writer.close,
    abandon: writer.abandon,
    storeHeld: (home) => replaySpool(spoolDir(home), writer),
  };
}
