/**
 * The contract between IRC (which writes messages) and the history store (which keeps and
 * serves them). `store/messages.ts` implements MessageStore.
 */

/** A message kind. */
export type MessageType = "privmsg" | "notice" | "action";

/** A message as IRC hands it to the store. */
export interface NewMessage {
  /** Row id of the conversation (`conversations.id`). */
  conversation: number;
  /** Owner of the conversation (denormalised for per-user search and notifications). */
  userId: number;
  /** Sender's nick, or the server name. */
  from: string;
  type: MessageType;
  text: string;
  /** Microseconds since the epoch (IRCv3 server-time when present); now when absent. */
  ts?: number;
  /** True when it mentions the user (nick or highlight keyword) or is a private message. */
  highlight?: boolean;
  /** Counts as unread in its conversation (added in the writer's transaction). */
  unread?: boolean;
}

/** A message as the API returns it. */
export interface MessageJson {
  from: string;
  message: string;
  /** RFC 3339 with microseconds. */
  ts: string;
  type: MessageType;
  highlight?: boolean;
  connection_id?: string;
  conversation_id?: string;
}

/** A page of history or search results as the API returns it. */
export interface MessagePage {
  messages: MessageJson[];
  /** Present when older messages exist: pass as `before` to read them. */
  before?: string;
  /** Present when newer messages exist: pass as `after` to read them. */
  after?: string;
  /** Search only: true when nothing older matches. */
  end?: boolean;
}

/** Filters of conversationMessages / connectionMessages (already validated; times in µs). */
export interface HistoryQuery {
  before?: number;
  after?: number;
  around?: number;
  limit: number;
  match?: string;
}

/** Filters of searchMessages (already validated; times in µs). */
export interface SearchQuery {
  match?: string;
  connectionId?: string;
  conversationId?: string;
  from?: string;
  before?: number;
  after?: number;
  limit: number;
}

/** Storage of messages, their search index and the notifications drawn from them. */
export interface MessageStore {
  /**
   * Queues a message for the batched writer and returns it with its final timestamp
   * (unique within the conversation: a collision is nudged by 1 µs). Synchronous so the
   * caller can publish the event at once; the write lands within the writer's 10 ms window.
   */
  /** Queues a message; `unread` is the conversation's count with it when `msg.unread`. */
  append(msg: NewMessage): { ts: number; unread?: number };
  /** Resolves once everything appended so far is committed. */
  flush(): Promise<void>;
  /** Commits what is pending now (unread counts included), as reads do. */
  commit(): void;
  /** Resolves once everything appended so far is committed and in the search index. */
  searchable(): Promise<void>;
  /** Resolves once the search index has caught up and is tidied (benchmarks, tests). */
  settled(): Promise<void>;
  /** One page of a conversation, by its row id (the caller has checked that it is the user's). */
  historyOf(conversation: number, q: HistoryQuery): Promise<MessagePage>;
  /** Searches all of the user's conversations, newest first. */
  search(userId: number, q: SearchQuery): Promise<MessagePage>;
  /** The user's notifications (highlighted messages), newest first, older than `before` (µs). */
  notifications(userId: number, limit: number, before?: number): Promise<MessagePage>;
  /** How many of the user's notifications are unread. */
  unreadNotifications(userId: number): Promise<number>;
  /** Marks all of the user's notifications read. */
  markNotificationsRead(userId: number): Promise<void>;
  /** Deletes all messages of a conversation (`/clear history`). */
  clear(conversation: number): Promise<void>;
}
