/**
 * The contract between IRC (which writes messages) and the history store (which keeps and
 * serves them). `store/messages.ts` implements MessageStore.
 */

/** A message kind. */
/** Convos's names: `private` is a PRIVMSG (in a channel too), `error` a failure shown in place. */
export type ChatType = "private" | "notice" | "action" | "error";

/**
 * What happened in a channel, kept in history beside the messages (shown after a reload) but
 * never unread, never a notification and never in the search index.
 */
export type EventType = "join" | "part" | "quit" | "kick" | "nick_change" | "topic" | "mode";

/** A message kind. */
export type MessageType = ChatType | EventType;

/** Stored codes (`messages.type`); codes from FIRST_EVENT_CODE on are channel events. */
export const TYPE_CODE: Record<MessageType, number> = {
  private: 0,
  notice: 1,
  action: 2,
  error: 3,
  join: 4,
  part: 5,
  quit: 6,
  kick: 7,
  nick_change: 8,
  topic: 9,
  mode: 10,
};

/** The first code of a channel event: rows with `type >= FIRST_EVENT_CODE` are not searchable. */
export const FIRST_EVENT_CODE = 4;

/** The type of each stored code. */
export const TYPES: MessageType[] = Object.entries(TYPE_CODE).sort((a, b) => a[1] - b[1])
  .map(([name]) => name as MessageType);

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
   * (unique within the conversation at millisecond resolution: a collision moves it to the next
   * free millisecond, so millisecond cursors stay exact). Synchronous so the
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
