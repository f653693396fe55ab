/**
 * Conversations in SQLite: their unread counts, which are the message writer's (the rest of the
 * table is written once, store/tables/conversations.ts; store/conversations.ts has the interface).
 */
import type { DatabaseSync } from "node:sqlite";
import { nowMicros } from "../../lib/time.ts";
import { type ConversationRow, type ConversationStore, toRecord } from "../conversations.ts";
import { conversationStore } from "../tables/conversations.ts";
import type { TableDb } from "../tables/db.ts";
import { sqliteTables } from "./tables.ts";

/** What the message writer holds that reads of conversations must see. */
interface PendingWrites {
  /** Commits what the writer holds (its unread counts are saved in its batch). */
  commit(): void;
  /** A conversation's unread messages counted and not yet committed. */
  unread(conversation: number): number;
}

const NOTHING_PENDING: PendingWrites = { commit: () => {}, unread: () => 0 };

/**
 * The SQLite implementation of ConversationStore. A user's listing (its notification counts are
 * read from the messages) and mark-as-read commit what the message writer holds first; reading one
 * conversation, or a connection's, adds the pending unread counts instead (one is read for every
 * channel event stored, the other at every connect, and a commit each was most of the cost of
 * joins into busy channels and of thousands of connections registering).
 */
export function sqliteConversationStore(
  db: DatabaseSync,
  pending: PendingWrites = NOTHING_PENDING,
  tables: TableDb = sqliteTables(db),
): ConversationStore {
  const q = {
    // The count walks the user's highlights since the last read (a small partial index), never
    // the unread messages of a busy channel. A mention read on the notifications page is read.
    listForUser: db.prepare(
      `SELECT v.*, c.connection_id, (SELECT count(*) FROM messages m INDEXED BY messages_highlight
         WHERE m.user_id = c.user_id AND m.highlight = 1 AND m.ts > v.last_read
           AND m.ts > coalesce((SELECT r.last_ts FROM notification_reads r
             WHERE r.user_id = c.user_id), 0)
           AND m.conversation = v.id) AS notifications
       FROM conversations v JOIN connections c ON c.id = v.connection
       WHERE c.user_id = ? ORDER BY v.conversation_id, c.connection_id`,
    ),
    listForConnection: db.prepare(`SELECT v.*, c.connection_id FROM conversations v
      JOIN connections c ON c.id = v.connection WHERE v.connection = ? ORDER BY v.conversation_id`),
    unread: db.prepare(
      "UPDATE conversations SET unread = unread + 1 WHERE id = ? RETURNING unread",
    ),
    read: db.prepare("UPDATE conversations SET unread = 0, last_read = ? WHERE id = ?"),
    readAll: db.prepare("UPDATE conversations SET unread = 0, last_read = ? WHERE connection = ?"),
  };
  /** Runs `fn` once the message writer's pending unread counts are committed. */
  const committed = <T>(fn: () => T): Promise<T> => {
    pending.commit();
    return Promise.resolve(fn());
  };
  return conversationStore(tables, {
    count: (id, stored) => stored + pending.unread(id),
    listForUser: (userId) =>
      committed(() => (q.listForUser.all(userId) as unknown as ConversationRow[]).map(toRecord)),
    listForConnection: (connection, opts) => {
      const list = (q.listForConnection.all(connection) as unknown as ConversationRow[])
        .map(toRecord);
      // The pending counts are added, not committed: every connect and disconnect lists its
      // conversations, and a commit of the writer's batch for each was thousands of small
      // commits while thousands of connections registered.
      if (opts?.unread !== false) { for (const c of list) c.unread += pending.unread(c.id); }
      return Promise.resolve(list);
    },
    addUnread: (id) =>
      // all(), not get(): a write's returned row read with get() hides a failed commit.
      Promise.resolve((q.unread.all(id)[0] as { unread: number } | undefined)?.unread ?? 0),
    markRead: (id) => committed(() => void q.read.run(nowMicros(), id)),
    markConnectionRead: (connection) =>
      committed(() => void q.readAll.run(nowMicros(), connection)),
  });
}
