/** Conversations in SQLite (store/conversations.ts has the interface and its records). */
import type { DatabaseSync } from "node:sqlite";
import { nowMicros } from "../../lib/time.ts";
import {
  type ConversationRow,
  type ConversationStore,
  detachColumns,
  toRecord,
} from "../conversations.ts";
import { MAX_DRAFT } from "../../protocol/limits.ts";

const SELECT = `SELECT v.*, c.connection_id FROM conversations v
  JOIN connections c ON c.id = v.connection`;

/** What the message writer holds that reads of conversations must see. */
export interface PendingWrites {
  /** Commits what the writer holds (its unread counts are saved in its batch). */
  commit(): void;
  /** A conversation's unread messages counted and not yet committed. */
  unread(conversation: number): number;
}

const NOTHING_PENDING: PendingWrites = { commit: () => {}, unread: () => 0 };

/**
 * The SQLite implementation of ConversationStore. Listings and mark-as-read commit what the
 * message writer holds first; reading one conversation adds its pending unread count instead (it
 * is read for every channel event stored, and a commit each was most of the cost of joins into
 * busy channels).
 */
export function sqliteConversationStore(
  db: DatabaseSync,
  pending: PendingWrites = NOTHING_PENDING,
): ConversationStore {
  const commitPending = () => pending.commit();
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
    withDetachment: db.prepare(
      `SELECT DISTINCT c.user_id, c.connection_id
       FROM conversations v JOIN connections c ON c.id = v.connection
       WHERE v.detached = 1 OR v.detach_after > 0`,
    ),
    listForConnection: db.prepare(`${SELECT} WHERE v.connection = ? ORDER BY v.conversation_id`),
    get: db.prepare(`${SELECT} WHERE v.connection = ? AND v.conversation_id = ?`),
    count: db.prepare(
      "SELECT count(*) AS n FROM conversations WHERE connection = ? AND conversation_id != ''",
    ),
    insert: db.prepare(`INSERT INTO conversations (connection, conversation_id, name, created)
      VALUES (?, ?, ?, ?) ON CONFLICT (connection, conversation_id) DO NOTHING`),
    topic: db.prepare("UPDATE conversations SET topic = ? WHERE id = ?"),
    joined: db.prepare("UPDATE conversations SET joined = ? WHERE id = ?"),
    rename: db.prepare("UPDATE conversations SET conversation_id = ?, name = ? WHERE id = ?"),
    unread: db.prepare(
      "UPDATE conversations SET unread = unread + 1 WHERE id = ? RETURNING unread",
    ),
    read: db.prepare("UPDATE conversations SET unread = 0, last_read = ? WHERE id = ?"),
    readAll: db.prepare("UPDATE conversations SET unread = 0, last_read = ? WHERE connection = ?"),
    remove: db.prepare("DELETE FROM conversations WHERE id = ?"),
    notify: db.prepare("UPDATE conversations SET notify = ? WHERE id = ?"),
    draft: db.prepare("SELECT draft FROM conversations WHERE id = ?"),
    setDraft: db.prepare("UPDATE conversations SET draft = ? WHERE id = ?"),
  };
  const get = (connection: number, conversationId: string) => {
    const row = q.get.get(connection, conversationId) as ConversationRow | undefined;
    if (row) row.unread += pending.unread(row.id);
    return row && toRecord(row);
  };
  /** Runs `fn` once the message writer's pending unread counts are committed. */
  const committed = <T>(fn: () => T): Promise<T> => {
    commitPending();
    return Promise.resolve(fn());
  };
  let generation = 0;
  return {
    get generation() {
      return generation;
    },
    listForUser: (userId) =>
      committed(() => (q.listForUser.all(userId) as unknown as ConversationRow[]).map(toRecord)),
    listForConnection: (connection, opts) => {
      const read = () =>
        (q.listForConnection.all(connection) as unknown as ConversationRow[]).map(toRecord);
      // Each registration lists its conversations twice: committing the writer's batch for each
      // was thousands of small commits while thousands of connections registered.
      return opts?.unread === false ? Promise.resolve(read()) : committed(read);
    },
    get: (connection, conversationId) => Promise.resolve(get(connection, conversationId)),
    withDetachment: () =>
      Promise.resolve(
        (q.withDetachment.all() as { user_id: number; connection_id: string }[]).map((r) => ({
          userId: r.user_id,
          connectionId: r.connection_id,
        })),
      ),
    count: (connection) => Promise.resolve((q.count.get(connection) as { n: number }).n),
    ensure(connection, conversationId, name) {
      q.insert.run(connection, conversationId, name, nowMicros());
      return Promise.resolve(get(connection, conversationId)!);
    },
    setTopic: (id, topic) => Promise.resolve(void q.topic.run(topic, id)),
    setJoined: (id, joined) => Promise.resolve(void q.joined.run(joined ? 1 : 0, id)),
    rename: (id, conversationId, name) => {
      generation++;
      return Promise.resolve(void q.rename.run(conversationId, name, id));
    },
    addUnread: (id) =>
      Promise.resolve((q.unread.get(id) as { unread: number } | undefined)?.unread ?? 0),
    markRead: (id) => committed(() => void q.read.run(nowMicros(), id)),
    markConnectionRead: (connection) =>
      committed(() => void q.readAll.run(nowMicros(), connection)),
    remove: (id) => {
      generation++;
      return Promise.resolve(void q.remove.run(id));
    },
    setNotify: (id, level) => {
      generation++;
      return Promise.resolve(void q.notify.run(level, id));
    },
    setDetach: (id, change) => {
      const cols = Object.entries(detachColumns(change));
      if (!cols.length) return Promise.resolve();
      generation++;
      // The column names are detachColumns' own, never the caller's.
      db.prepare(
        `UPDATE conversations SET ${cols.map(([k]) => `${k} = ?`).join(", ")} WHERE id = ?`,
      )
        .run(...cols.map(([, v]) => v), id);
      return Promise.resolve();
    },
    draft: (id) => Promise.resolve((q.draft.get(id) as { draft: string } | undefined)?.draft ?? ""),
    setDraft: (id, text) => Promise.resolve(void q.setDraft.run(text.slice(0, MAX_DRAFT), id)),
  };
}
