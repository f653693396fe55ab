/** Conversations: the channels and private chats of a connection, with topic and unread count. */

import { NOTIFY_LEVELS, type NotifyLevel } from "../protocol/limits.ts";
import {
  type DetachState,
  REATTACH_ON,
  type ReattachOn,
  RELAY_DETACHED,
  type RelayDetached,
} from "../protocol/detach.ts";

/**
 * The level in effect: the stored one, else mentions only in a channel and everything in a
 * private conversation (where every message is a mention anyway).
 */
export function notifyLevel(stored: NotifyLevel | "", isChannel: boolean): NotifyLevel {
  return stored || (isChannel ? "mentions" : "all");
}

/** The longest channel key kept (servers allow about 23 characters; some more). */
const MAX_CHANNEL_KEY = 100;

/**
 * `raw` when it can be a channel key: a string of 1 to MAX_CHANNEL_KEY characters without a space,
 * a comma (keys are listed with commas in a JOIN) or a control character; else undefined. `*`,
 * which servers show for a key they hide, is none.
 */
export function channelKey(raw: unknown): string | undefined {
  if (typeof raw !== "string" || raw === "*") return undefined;
  return raw.length <= MAX_CHANNEL_KEY && /^[^\s,\p{Cc}]+$/u.test(raw) ? raw : undefined;
}

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
  /** The chosen notification level, `""` for the default. */
  notify: NotifyLevel | "";
  /** Detached from IRC clients (channels only), and its options. */
  detach: DetachState;
  /**
   * The channel's key (+k), "" when none is known: sent with the JOIN after a reconnect. A secret
   * of the channel's members, never in an API answer, an event or a log.
   */
  key: string;
}

/** Storage of conversations. */
export interface ConversationStore {
  /**
   * Bumped whenever a conversation is renamed or removed or its notification level changes, so
   * that callers caching rows by name (the IRC hot path) know when to look again.
   */
  readonly generation: number;
  /**
   * All conversations of a user, by conversation_id then connection_id (as Convos lists them),
   * with their notification counts.
   */
  listForUser(userId: number): Promise<ConversationRecord[]>;
  /**
   * A connection's conversations; with `unread: false` their unread counts may leave out what
   * the message writer has not committed yet, and the listing does not wait for it (the caller
   * reads no counts: a registration's rejoin, gap markers).
   */
  listForConnection(connection: number, opts?: { unread?: boolean }): Promise<ConversationRecord[]>;
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
  /** Sets the notification level (`""`: back to the default). */
  setNotify(id: number, level: NotifyLevel | ""): Promise<void>;
  /** Keeps a channel's key ("" forgets it); a value `channelKey` refuses changes nothing. */
  setKey(id: number, key: string): Promise<void>;
  /** Changes a channel's detachment or its options (the fields given). */
  setDetach(id: number, change: Partial<DetachState>): Promise<void>;
  /**
   * The connections with a channel detached or set to detach itself: what they decide (a message
   * that reattaches, an idle channel) must run from the start, whether an IRC client is attached
   * or not.
   */
  withDetachment(): Promise<{ userId: number; connectionId: string }[]>;
  /** The half-typed line kept for the conversation ("" when none). */
  draft(id: number): Promise<string>;
  /** Keeps a half-typed line (at most MAX_DRAFT characters; "" clears it). */
  setDraft(id: number, text: string): Promise<void>;
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
  notify?: string;
  detached?: number | boolean;
  relay_detached?: string;
  reattach_on?: string;
  detach_after?: number;
  channel_key?: string;
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
    notify: NOTIFY_LEVELS.includes(r.notify as NotifyLevel) ? r.notify as NotifyLevel : "",
    detach: {
      detached: Boolean(r.detached),
      relayDetached: RELAY_DETACHED.includes(r.relay_detached as RelayDetached)
        ? r.relay_detached as RelayDetached
        : "",
      reattachOn: REATTACH_ON.includes(r.reattach_on as ReattachOn)
        ? r.reattach_on as ReattachOn
        : "",
      detachAfter: Number(r.detach_after ?? 0),
    },
    key: channelKey(r.channel_key) ?? "",
  };
}

/** The stored row's columns of a detachment change, by column. */
export function detachColumns(change: Partial<DetachState>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (change.detached !== undefined) out.detached = change.detached ? 1 : 0;
  if (change.relayDetached !== undefined) out.relay_detached = change.relayDetached;
  if (change.reattachOn !== undefined) out.reattach_on = change.reattachOn;
  if (change.detachAfter !== undefined) {
    out.detach_after = Math.max(0, Math.floor(change.detachAfter));
  }
  return out;
}
