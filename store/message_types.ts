/**
 * The contract between IRC (which writes messages) and the history store (which keeps and
 * serves them): a small core every backend implements, and optional capabilities (search,
 * notifications, the waits) that callers check for. `store/sqlite/messages/` and `store/pg/`
 * implement it.
 */

import type { MessageType } from "../protocol/events.ts";
import type { MessagePage } from "../protocol/messages.ts";

/** A message as IRC hands it to the store. */
export interface NewMessage {
  /** Row id of the conversation (`conversations.id`). */
  conversation: number;
  /** Owner of the conversation (denormalised for per-user search and notifications). */
  userId: number;
  /** Sender's nick, or the server name. */
  from: string;
  type: MessageType;
  /** What was said; "" for a line kept as `fields`. */
  text: string;
  /**
   * A channel event's fields but the sender's, as JSON (store/event_fields.ts `storedFields`):
   * lines of a `KeptKind` only.
   */
  fields?: string;
  /** Microseconds since the epoch (IRCv3 server-time when present); now when absent. */
  ts?: number;
  /** True when it mentions the user (nick or highlight keyword) or is a private message. */
  highlight?: boolean;
  /** Counts as unread: the conversation's unread count goes up with it. */
  unread?: boolean;
  /** The IRC server's `msgid` tag of the line (IRCv3 message-ids), at most 200 characters. */
  serverMsgid?: string;
  /** The server msgid the line replies (or, for a `react`, reacts) to: its `+draft/reply`. */
  replyTo?: string;
  /**
   * The rest of the sender's source (`user@host`) as the server showed it, for IRC clients'
   * history: their lines come from `nick!user@host` as they did live. At most 200 characters.
   */
  senderHost?: string;
}

/** A page of a conversation's history (already validated; times in µs). */
export interface HistoryQuery {
  /** Messages older than this. */
  before?: number;
  /** Messages newer than this. */
  after?: number;
  /** Up to `limit` messages on each side of this time, the one at it included. */
  around?: number;
  limit: number;
}

/** Filters of a search over all of a user's conversations (already validated; times in µs). */
export interface SearchQuery {
  /** The `match` language of store/match.ts. */
  match?: string;
  connectionId?: string;
  /** A casefolded conversation id. */
  conversationId?: string;
  from?: string;
  before?: number;
  after?: number;
  limit: number;
}

/** What `append` gives back. */
export interface Appended {
  /** The stored timestamp (µs), unique within the conversation at millisecond resolution. */
  ts: number;
  /** The conversation's unread count with this message, when it counts as unread. */
  unread?: number;
}

/**
 * The history core every backend implements. Reads see every message appended before them,
 * committed or not.
 */
export interface MessageStore {
  /**
   * Stores a message and resolves with its final timestamp: unique within the conversation at
   * millisecond resolution (a collision moves it to the next free millisecond, so millisecond
   * cursors stay exact), and anything outside the storable range becomes the current time.
   * Resolves at once; the write may be batched (see `flush`).
   */
  append(msg: NewMessage): Promise<Appended>;
  /** Resolves once everything appended so far is committed. */
  flush(): Promise<void>;
  /** One page of a conversation, by its row id (the caller has checked that it is the user's). */
  historyOf(conversation: number, q: HistoryQuery): Promise<MessagePage>;
  /** Deletes all messages of a conversation (`/clear history`). */
  clear(conversation: number): Promise<void>;
  /** Word search, when the backend has an index for it. */
  readonly search?: MessageSearch;
  /** Highlighted messages as notifications, when the backend keeps a read marker. */
  readonly notifications?: MessageNotifications;
  /** Ranges, targets, read markers and clients' places for native IRC clients (history_types.ts). */
  readonly history?: import("./history_types.ts").MessageHistory;
  /**
   * Waits, where a backend indexes after the commit (SQLite's worker): resolves once everything
   * appended so far is committed and searchable. Tests, benchmarks and the importer wait on it.
   */
  searchable?(): Promise<void>;
  /** Resolves once the search index has caught up and is tidied (benchmarks, tests). */
  settled?(): Promise<void>;
  /** Deleting old messages, where the backend can (store/retention.ts runs it in the background). */
  readonly retention?: MessageRetention;
  /**
   * Stores the messages an earlier stop kept in the data folder `home` because the database did
   * not answer (PostgreSQL: store/pg/spool.ts); resolves with how many, once committed. The
   * daemon's alone: it holds the data folder.
   */
  storeHeld?(home: string): Promise<number>;
  /**
   * The process ends now, whatever is under way: what the writer holds that the database never
   * confirmed is kept in the data folder for `storeHeld` (PostgreSQL), at once. `kept`: messages
   * kept; `lost`: conversations that still had some on their way to the writer.
   */
  abandon?(): { kept: number; lost: number };
}

/** The retention capability: the oldest messages go, a small batch at a time. */
export interface MessageRetention {
  /**
   * Deletes up to `limit` of the oldest messages older than `before` (µs), in one short
   * transaction, and resolves with how many went. Their search entries go with them, unread
   * counts lose the unread ones among them; conversations and read markers stay.
   */
  pruneBatch(before: number, limit: number): Promise<number>;
  /**
   * Runs `pass` unless another node sharing the database is pruning it now; resolves whether it
   * ran. Absent: one process owns the database, and the pass simply runs.
   */
  exclusive?(pass: () => Promise<void>): Promise<boolean>;
}

/** The search capability: the `match` language (store/match.ts) over stored messages. */
export interface MessageSearch {
  /** Searches all of the user's conversations, newest first; channel events never match. */
  forUser(userId: number, q: SearchQuery): Promise<MessagePage>;
  /** One conversation's messages matching `match`, paged like `historyOf`. */
  inConversation(conversation: number, match: string, q: HistoryQuery): Promise<MessagePage>;
}

/** The notifications capability: a user's highlighted messages and how many are unread. */
export interface MessageNotifications {
  /** The user's notifications, newest first, older than `before` (µs). */
  list(userId: number, limit: number, before?: number): Promise<MessagePage>;
  /** How many of the user's notifications are unread. */
  unread(userId: number): Promise<number>;
  /** Marks all of the user's notifications read. */
  markRead(userId: number): Promise<void>;
}
