/**
 * The contract between IRC (which writes messages) and the history store (which keeps and
 * serves them): a small core every backend implements, and optional capabilities (search,
 * notifications, the waits) that callers check for. `store/sqlite/messages/` and `store/pg/`
 * implement it.
 */

import {
  type ChatType,
  type KeptFields,
  type KeptKind,
  LINE_KINDS,
  type MessageType,
} from "../lib/events.ts";

/**
 * The kinds of message, and their stored codes, come from the one declaration of the kinds of
 * line (lib/events.ts, `LINE_KINDS`). `private` is a PRIVMSG (in a channel too), `error` a
 * failure shown in place.
 */
export type { ChatType, KeptFields, KeptKind, MessageType };

/** Stored codes (`messages.type`), as declared; codes from FIRST_EVENT_CODE on are channel events. */
export const TYPE_CODE = Object.fromEntries(
  Object.entries(LINE_KINDS).map(([type, kind]) => [type, kind.code]),
) as Record<MessageType, number>;

/**
 * The first code of a channel event: rows with `type >= FIRST_EVENT_CODE` are not searchable.
 * Stored data and the history queries rely on it; a test keeps the declared codes on its sides.
 */
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
}

/** A message as the API returns it. */
export interface MessageJson {
  from: string;
  /**
   * What was said. For a channel event kept as `fields` the store gives "", and the history API
   * says it in Convos's words ("bob joined.").
   */
  message: string;
  /**
   * A channel event's fields (a join, part, kick, quit, nick change, topic or mode), named as
   * its live event names them: the client shows the line by the same words as the live one.
   * Absent on messages, and on events stored as text before they were kept as data. A
   * `KeptFields` of its type (typed loosely here, as the API document declares it).
   */
  fields?: Readonly<Record<string, string | undefined>>;
  /** RFC 3339 with microseconds. */
  ts: string;
  type: MessageType;
  highlight?: boolean;
  /** Its stable id (lib/msgid.ts): the same attached IRC clients see. */
  msgid?: string;
  /** The IRC server's own msgid of the line, when it gave one: what replies and reactions name. */
  server_msgid?: string;
  /** The server msgid this line replies to (a `react` line: reacts to). */
  reply_to?: string;
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
