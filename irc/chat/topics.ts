/**
 * Who set each channel's topic and when, as the server told this connection: RPL_TOPICWHOTIME
 * (333) after the topic on every join, and each TOPIC change since (the server tells members every
 * change). Kept in memory, so `/topic` answers a joined channel without asking the server again:
 * its 332 and 333 would also reach the IRC clients attached to the listener, unasked.
 */
import type { LRUCache } from "lru-cache";
import type { IrcConnection } from "../engine/connection.ts";
import { boundedCache } from "../../lib/bounded_cache.ts";

/** The setter (a nick or a mask) and the time (ISO 8601), each when the server said. */
export interface TopicSetter {
  by?: string;
  at?: string;
}

/** Most channels remembered per connection (oldest forgotten first): the channel cap is 2,000. */
const MAX_CHANNELS = 4000;

const told = new WeakMap<IrcConnection, Map<string, TopicSetter>>();

/** Records what the server told of `convId`'s topic: `{}` for a topic whose setter is not known. */
export function topicTold(conn: IrcConnection, convId: string, setter: TopicSetter): void {
  let channels = told.get(conn);
  if (!channels) told.set(conn, channels = new Map());
  channels.delete(convId);
  channels.set(convId, {
    ...(setter.by ? { by: setter.by.slice(0, 100) } : {}),
    ...(setter.at ? { at: setter.at } : {}),
  });
  if (channels.size > MAX_CHANNELS) channels.delete(channels.keys().next().value!);
}

/** Adds the setter RPL_TOPICWHOTIME names (`when` in Unix seconds) to what is known. */
export function topicSetBy(conn: IrcConnection, convId: string, by: string, when: unknown): void {
  const seconds = Number(when);
  const at = Number.isSafeInteger(seconds) && seconds > 0
    ? new Date(seconds * 1000).toISOString()
    : undefined;
  topicTold(conn, convId, { by, at });
}

/** What the server told of `convId`'s topic's setter, or undefined when it has told nothing. */
export function topicSetter(conn: IrcConnection, convId: string): TopicSetter | undefined {
  return told.get(conn)?.get(convId);
}

/** The default life of a mark: time enough for the server's echo. */
const FORGET_MS = 10_000;

/** Marks per connection; each expires on its own (no timer runs), the oldest going first when full. */
const changing = new WeakMap<IrcConnection, LRUCache<string, true>>();

/**
 * Marks `convId`'s topic as being changed by the user (sent, its echo not yet recorded): until
 * the change is recorded, what is kept is older than the server's, so `/topic` asks the server.
 * The mark goes when the change is recorded, or `forgetMs` after the last change was sent (a
 * refusal never echoes).
 */
export function topicChanging(conn: IrcConnection, convId: string, forgetMs = FORGET_MS): void {
  let marks = changing.get(conn);
  if (!marks) changing.set(conn, marks = boundedCache(MAX_CHANNELS, FORGET_MS));
  marks.set(convId, true, { ttl: forgetMs });
}

/** The user's change of `convId`'s topic is recorded (its echo came and is stored). */
export function topicChanged(conn: IrcConnection, convId: string): void {
  changing.get(conn)?.delete(convId);
}

/** Whether a change of `convId`'s topic by the user is on its way. */
export function isTopicChanging(conn: IrcConnection, convId: string): boolean {
  return changing.get(conn)?.has(convId) ?? false;
}
