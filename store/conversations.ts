/** Conversations: the channels and private chats of a connection, with topic and unread count. */
import type { DatabaseSync } from "node:sqlite";
import { nowMicros } from "../lib/time.ts";

/** A conversation as stored. */
export interface ConversationRecord {
  /** Row id (`conversations.id`), what messages refer to. */
  id: number;
  /** Row id of the connection. */
  connection: number;
  /** The API's connection_id of the connection (joined in for listings). */
  connectionId: string;
  /** The IRC-casefolded name; "" is the server's own conversation. */
  conversationId: string;
  /** The name as IRC spells it. */
  name: string;
  topic: string;
  unread: number;
  /** Microseconds of the last mark-as-read. */
  lastRead: number;
  /** True while the user wants to be in this channel (rejoined after reconnects). */
  joined: boolean;
  /** Highlighted messages since the last mark-as-read (listForUser only; 0 elsewhere). */
  notifications: number;
}

/** Storage of conversations. */
export interface ConversationStore {
  /**
   * Bumped whenever a conversation is renamed or removed, so that callers caching rows by name
   * (the IRC hot path) know when to look again.
   */
  readonly generation: number;
  /**
   * All conversations of a user, by conversation_id then connection_id (as Convos lists them),
   * with their notification counts.
   */
  listForUser(userId: number): Promise<ConversationRecord[]>;
  listForConnection(connection: number): Promise<ConversationRecord[]>;
  /** How many conversations a connection has, not counting the server's own. */
  count(connection: number): Promise<number>;
  get(connection: number, conversationId: string): Promise<ConversationRecord | undefined>;
  /** Returns the conversation, creating it when missing (the name is kept as first seen). */
  ensure(connection: number, conversationId: string, name: string): Promise<ConversationRecord>;
  setTopic(id: number, topic: string): Promise<void>;
  setJoined(id: number, joined: boolean): Promise<void>;
  /** Renames a private conversation after a nick change (id and name). */
  rename(id: number, conversationId: string, name: string): Promise<void>;
  /** Adds one unread message; returns the new count. */
  addUnread(id: number): Promise<number>;
  markRead(id: number): Promise<void>;
  /** Marks every conversation of a connection read. */
  markConnectionRead(connection: number): Promise<void>;
  /** Deletes a conversation and its messages. */
  remove(id: number): Promise<void>;
}

/** A `conversations` row joined with its connection_id (joined is 0/1 or a boolean). */
export interface ConversationRow {
  id: number;
  connection: number;
  connection_id: string;
  conversation_id: string;
  name: string;
  topic: string;
  unread: number;
  last_read: number;
  joined: number | boolean;
  notifications?: number;
}

/** A stored row as a ConversationRecord. */
export function toRecord(r: ConversationRow): ConversationRecord {
  return {
    id: r.id,
    connection: r.connection,
    connectionId: r.connection_id,
    conversationId: r.conversation_id,
    name: r.name,
    topic: r.topic,
    unread: r.unread,
    lastRead: r.last_read,
    joined: Boolean(r.joined),
    notifications: r.notifications ?? 0,
  };
}

const SELECT = `SELECT v.*, c.connection_id FROM conversations v
  JOIN connections c ON c.id = v.connection`;

/**
 * The SQLite implementation of ConversationStore. `commitPending` commits what the message writer
 * holds (its unread counts are saved in its batch), so reads and mark-as-read see every message.
 */
export function sqliteConversationStore(
  db: DatabaseSync,
  commitPending: () => void = () => {},
): ConversationStore {
  const q = {
    // The count walks the user's highlights since the last read (a small partial index), never
    // the unread messages of a busy channel.
    listForUser: db.prepare(
      `SELECT v.*, c.connection_id, (SELECT count(*) FROM messages m INDEXED BY messages_highlight
         WHERE m.user_id = c.user_id AND m.highlight = 1 AND m.ts > v.last_read
           AND m.conversation = v.id) AS notifications
       FROM conversations v JOIN connections c ON c.id = v.connection
       WHERE c.user_id = ? ORDER BY v.conversation_id, c.connection_id`,
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
  };
  const get = (connection: number, conversationId: string) => {
    commitPending();
    const row = q.get.get(connection, conversationId) as ConversationRow | undefined;
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
    listForConnection: (connection) =>
      committed(() =>
        (q.listForConnection.all(connection) as unknown as ConversationRow[]).map(toRecord)
      ),
    get: (connection, conversationId) => Promise.resolve(get(connection, conversationId)),
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
  };
}
