/**
 * The SQLite message store: the batched writer (writer.ts) appends to `parley.db`, a worker
 * indexes the committed rows into `search.db` (../search_index.ts), and reads commit what is
 * pending first. It has both optional capabilities, search and notifications.
 */
import type { DatabaseSync } from "node:sqlite";
import type { SearchIndexer } from "../search_index.ts";
import type { Checkpointer } from "../checkpointer.ts";
import { parseMatch } from "../../match.ts";
import type {
  MessageNotifications,
  MessageRetention,
  MessageSearch,
  MessageStore,
} from "../../message_types.ts";
import { messageWriter } from "./writer.ts";
import { idleGc } from "../../../lib/idle_gc.ts";
import { historyPages } from "./paging.ts";
import { ftsIndex } from "./fts.ts";
import { userSearch } from "./search.ts";
import { conversationMatches } from "./conversation_match.ts";
import { sqliteNotifications } from "./notifications.ts";
import { sqliteHistory } from "./history.ts";
import type { MessageHistory } from "../../history_types.ts";
import { sqliteRetention } from "../retention.ts";

/** The SQLite message store: both capabilities, and the waits that tests and tools need. */
export interface SqliteMessageStore extends MessageStore {
  readonly search: MessageSearch;
  readonly notifications: MessageNotifications;
  readonly history: MessageHistory;
  readonly retention: MessageRetention;
  /** Resolves once everything appended so far is committed and in the search index. */
  searchable(): Promise<void>;
  /** Resolves once the search index has caught up and is tidied (benchmarks, tests). */
  settled(): Promise<void>;
}

/** What the store's other parts need of the message store beside its interface. */
interface SqliteMessageParts {
  messages: SqliteMessageStore;
  /** Commits pending messages and unread counts now (conversation listings call it first). */
  commit(): void;
  /** Unread messages of a conversation not committed yet (a read of one adds them). */
  unreadPending(conversation: number): number;
  /** Commits what is pending and waits out a checkpoint, before the database closes. */
  close(): Promise<void>;
}

/** Builds the message store over `parley.db` (`db`) and `search.db` (`searchDb`). */
export function sqliteMessageStore(
  db: DatabaseSync,
  searchDb: DatabaseSync,
  indexer: SearchIndexer,
  checkpointer: Checkpointer,
): SqliteMessageParts {
  const writer = messageWriter(db, indexer, checkpointer);
  const { commit, unreadPending } = writer;
  const page = historyPages(db);
  const index = ftsIndex(db, searchDb);
  const searchAll = userSearch(db, index);
  const matchPage = conversationMatches(db, index);
  const clear = db.prepare("DELETE FROM messages WHERE conversation = ?");

  /**
   * Commits what is pending and waits until the search index has it too; a search waits a
   * bounded time (see SearchIndexer.searchable), `searchable()` for good.
   */
  function indexed(waitMs?: number): Promise<void> {
    commit();
    return indexer.searchable(writer.lastId(), waitMs);
  }

  const messages: SqliteMessageStore = {
    append: (msg) => Promise.resolve(writer.append(msg)),
    flush: writer.flush,
    historyOf(conversation, q) {
      // A page reads one conversation: only its own pending messages need committing first
      // (each of thousands of connections registering reads one, which would otherwise make
      // a commit of the whole batch each).
      if (writer.pendingFor(conversation)) commit();
      return Promise.resolve(page(conversation, q));
    },
    clear(conversation) {
      commit();
      clear.run(conversation); // the trigger logs the ids for the indexer to remove
      indexer.committed(writer.lastId(), true);
      return Promise.resolve();
    },
    search: {
      async forUser(userId, q) {
        await indexed();
        return searchAll(userId, q);
      },
      async inConversation(conversation, match, q) {
        commit();
        const parsed = parseMatch(match);
        if (parsed.empty) return { messages: [] };
        if (parsed.fts === undefined) return page(conversation, q); // only `#name`/`@nick`
        await indexed();
        return matchPage(conversation, parsed.fts, q);
      },
    },
    notifications: sqliteNotifications(db, commit),
    history: sqliteHistory(db, commit),
    // Batches keep the writer's checkpoint pacing; the trigger logs what a batch deleted, and
    // the indexer then removes it from search.db.
    retention: sqliteRetention(db, {
      idle: () => writer.pacing.idle(),
      deleted() {
        writer.pacing.afterCommit();
        indexer.committed(writer.lastId(), true);
      },
      removedUpTo: () => indexer.deletedUpTo(),
    }),
    searchable: () => indexed(Infinity),
    settled() {
      commit();
      return indexer.settled();
    },
  };
  // After a burst the page caches it filled go back with the heap (they refill from mmap).
  const unhook = idleGc.beforeCollect(() => {
    db.exec("PRAGMA shrink_memory");
    searchDb.exec("PRAGMA shrink_memory");
  });
  const close = () => (unhook(), writer.close());
  return { messages, commit, unreadPending, close };
}
