/**
 * The history capability of the message store: what a native IRC client's history needs beside
 * the web client's pages (CHATHISTORY ranges, the targets with recent lines, read markers that
 * only move forward, and each attached client's place in history). Times are microseconds.
 */
import type { KeptFields, MessageType } from "../protocol/events.ts";

/** A stored line as history hands it out. */
export interface HistoryLine {
  /** Row id of its conversation. */
  conversation: number;
  /** Microseconds; one line per millisecond of a conversation. */
  ts: number;
  type: MessageType;
  from: string;
  text: string;
  /** A channel event's fields (store/event_fields.ts); absent for a line kept as text. */
  fields?: KeptFields;
  /** The IRC server's msgid of the line, when it gave one. */
  serverMsgid?: string;
  /** The server msgid of the line this one replies (a reaction: reacts) to. */
  replyTo?: string;
  /** The rest of the sender's source (`user@host`), when the server showed it. */
  fromHost?: string;
}

/** Lines of one conversation strictly between two times. */
export interface LineRange {
  /** Lines newer than this (µs). */
  after: number;
  /** Lines older than this (µs). */
  before: number;
  /** At most this many... */
  limit: number;
  /** ...those nearest `before` (true) or nearest `after` (false). */
  newest: boolean;
  /** Channel events too (joins, parts...), not only messages. */
  events: boolean;
}

/** A conversation with its newest line in a range (CHATHISTORY TARGETS). */
export interface HistoryTarget {
  conversation: number;
  /** The name as IRC spells it. */
  name: string;
  /** The newest line's time in the range (µs). */
  latest: number;
}

/** A conversation's read marker and its unread count after a move. */
interface ReadMarker {
  /** Read up to here (µs); 0 when never read. */
  lastRead: number;
  unread: number;
}

/** The history capability; every read sees every message appended before it. */
export interface MessageHistory {
  /** Lines of a conversation in `r`, oldest first. */
  lines(conversation: number, r: LineRange): Promise<HistoryLine[]>;
  /**
   * The connection's conversations (not the server's own) whose newest line in the range lies
   * strictly between `after` and `before`: the `limit` nearest `before` (newest) or `after`,
   * oldest first.
   */
  targets(
    connection: number,
    r: { after: number; before: number; limit: number; newest: boolean; events: boolean },
  ): Promise<HistoryTarget[]>;
  /**
   * Moves the conversation's read marker forward to `ts` (never back) and lowers its unread count
   * to the messages after the marker that are not the user's own (from `own`, the user's nick);
   * undefined when no such conversation.
   */
  markRead(conversation: number, ts: number, own?: string): Promise<ReadMarker | undefined>;
  /**
   * The server's msgid of the connection's line stored in millisecond `ms` of the conversation;
   * undefined when the server gave none, or the conversation is not the connection's.
   */
  serverMsgid(connection: number, conversation: number, ms: number): Promise<string | undefined>;
  /** The times (µs) of the conversation's messages that the server named by these msgids. */
  byServerMsgid(conversation: number, ids: readonly string[]): Promise<Map<string, number>>;
  /** Where an attached client (by its name) last was in a connection's history (µs). */
  position(connection: number, client: string): Promise<number | undefined>;
  /** Moves the client's place forward to `ts` (never back). */
  setPosition(connection: number, client: string, ts: number): Promise<void>;
}
