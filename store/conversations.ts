/** Conversations: the channels and private chats of a connection, with topic and unread count. */

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
