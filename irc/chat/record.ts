/**
 * Turning a message seen on IRC (or sent by the user) into a stored message, unread count,
 * notification and live events.
 */
import type { EventBus } from "../../lib/bus.ts";
import type { BusMessageEvent } from "../../protocol/events.ts";
import { log } from "../../lib/log.ts";
import { boundedCache } from "../../lib/bounded_cache.ts";
import { formatMicros } from "../../protocol/time.ts";
import { nowMicros } from "../../lib/time.ts";
import { msgidOf } from "../../lib/msgid.ts";
import type { Store } from "../../store/mod.ts";
import { type ConversationRecord, notifyLevel } from "../../store/conversations.ts";
import type { ChatType } from "../../protocol/events.ts";
import type { IrcConnection } from "../engine/connection.ts";
import { isHighlight } from "./highlight.ts";
import { hideServicePassword } from "./service_secrets.ts";
import { ircLower, isChannel } from "../../lib/casefold.ts";
import { conversationJson } from "../resources.ts";
import { sourceOf } from "../protocol/message.ts";

/** What recording needs. */
export interface RecordDeps {
  store: Store;
  bus: EventBus;
}

/** The rest of a source (`user@host`), when it has both parts. */
export const userHost = (user: string | undefined, host: string | undefined): string | undefined =>
  user && host ? `${user}@${host}` : undefined;

/** The rest of `source` (`nick!user@host`) when it is `nick`'s; else undefined. */
export function hostOf(source: string | undefined, nick: string): string | undefined {
  if (!source) return undefined;
  const s = sourceOf(source);
  return ircLower(s.nick) === ircLower(nick) ? userHost(s.user, s.host) : undefined;
}

/** A message to record. */
export interface SeenMessage {
  /** The conversation's name as IRC spells it (channel or nick); "" for the server. */
  name: string;
  from: string;
  type: ChatType;
  text: string;
  /** Microseconds: IRCv3 server-time when the server said when, else the time it arrived. */
  ts?: number;
  /** Sent by the user (no unread, no highlight). */
  own?: boolean;
  /** The IRC server's `msgid` tag of the line, and its `+draft/reply` (the msgid it answers). */
  serverMsgid?: string;
  replyTo?: string;
  /** The rest of the sender's source (`user@host`), when the server showed it. */
  senderHost?: string;
  /** The sender's token for its send, carried on the bus event (protocol/events.ts BusMessageEvent). */
  origin?: string;
  /** A line of the server's history, stored after a gap: unread and a mention, never news. */
  history?: boolean;
}

/**
 * Whether a conversation appears in listings: not the server's own, and not a channel the user
 * has left (its history stays searchable, and joining again brings it back).
 */
export function isListed(c: ConversationRecord): boolean {
  return c.conversationId !== "" && (c.joined || !isChannel(c.conversationId));
}

/**
 * Finds or creates a conversation; announces a new one on the bus. Undefined when the connection
 * already has as many conversations as the server setting allows (a hostile server can make us
 * join thousands of channels); the server conversation says so once.
 */
export async function conversationFor(
  deps: RecordDeps,
  conn: IrcConnection,
  name: string,
): Promise<ConversationRecord | undefined> {
  const id = name === "" ? "" : conn.conversationId(name);
  const existing = await deps.store.conversations.get(conn.record.id, id);
  if (existing) return existing;
  if (id !== "" && !(await roomForConversation(deps, conn))) return undefined;
  const created = await deps.store.conversations.ensure(
    conn.record.id,
    id,
    name === "" ? conn.url.host : name,
  );
  namesKnown.get(conn)?.add(id);
  if (id !== "") {
    deps.bus.publish(conn.userId, {
      event: "state",
      type: "conversation",
      ...conversationJson(created),
    });
  }
  return created;
}

async function roomForConversation(deps: RecordDeps, conn: IrcConnection): Promise<boolean> {
  const max = (await deps.store.settings.current()).max_conversations_per_connection;
  if ((await deps.store.conversations.count(conn.record.id)) < max) {
    conn.conversationCapNoticed = false;
    return true;
  }
  if (!conn.conversationCapNoticed) {
    conn.conversationCapNoticed = true;
    log.warn("irc conversation cap", { connection: conn.id, uid: conn.userId, max });
    await recordMessage(deps, conn, {
      name: "",
      from: conn.url.host,
      type: "notice",
      text: `This connection has ${max} conversations, the most this server keeps. ` +
        "New channels and private messages are ignored until you close some.",
    });
  }
  return false;
}

/**
 * The conversation_ids a connection has, so that a quit or nick change of someone it has no
 * private conversation with (nearly every one: a netsplit, or thousands of connections quitting
 * shared channels when a daemon stops) costs no read. Listed from the store on first need, then
 * kept true here: only the node running a connection creates (conversationFor) and renames (a
 * nick change) its conversations. A removed one is forgotten at the first read that misses it.
 */
class ConversationNames {
  readonly #ids = new Set<string>();
  /** Counts additions: a read that found nothing forgets a name only if none came meanwhile. */
  #added = 0;
  #listing: Promise<void> | undefined;

  constructor(listing: Promise<ConversationRecord[]>) {
    this.#listing = listing.then((rows) => {
      for (const c of rows) this.#ids.add(c.conversationId);
      this.#listing = undefined;
    });
  }

  /** False only when the connection surely has no conversation `id`. */
  async mayHave(id: string): Promise<boolean> {
    try {
      await this.#listing;
    } catch {
      return true; // not listed: the store says
    }
    return this.#ids.has(id);
  }

  add(id: string): void {
    this.#ids.add(id);
    this.#added++;
  }

  renamed(from: string, to: string): void {
    this.#ids.delete(from);
    this.add(to);
  }

  /** A mark to pass to `missed`. */
  get added(): number {
    return this.#added;
  }

  /** A read since `mark` found no conversation `id`: it was removed. */
  missed(id: string, mark: number): void {
    if (this.#added === mark) this.#ids.delete(id);
  }
}

const namesKnown = new WeakMap<IrcConnection, ConversationNames>();

function namesOf(deps: RecordDeps, conn: IrcConnection): ConversationNames {
  let names = namesKnown.get(conn);
  if (!names) {
    const listing = deps.store.conversations.listForConnection(conn.record.id, { unread: false });
    names = new ConversationNames(listing);
    namesKnown.set(conn, names);
    // A failed listing is not kept: the next lookup lists again.
    listing.catch(() => namesKnown.get(conn) === names && namesKnown.delete(conn));
  }
  return names;
}

/**
 * The stored conversation `id` of `conn` (a conversation_id), never created; read from the store
 * only when the connection may have it.
 */
export async function storedConversation(
  deps: RecordDeps,
  conn: IrcConnection,
  id: string,
): Promise<ConversationRecord | undefined> {
  const names = namesOf(deps, conn);
  if (!(await names.mayHave(id))) return undefined;
  const mark = names.added;
  const conv = await deps.store.conversations.get(conn.record.id, id);
  if (!conv) names.missed(id, mark);
  return conv;
}

/** Says that conversation `from` of `conn` is now `to` (a private one follows a nick change). */
export function renamedConversation(conn: IrcConnection, from: string, to: string): void {
  namesKnown.get(conn)?.renamed(from, to);
}

/**
 * Conversations by conversation_id per connection, for the per-line path: looking one up in SQL
 * for every line of a burst cost a quarter of the CPU. Dropped when the store says a
 * conversation was renamed or removed (its generation changes).
 */
const conversationCache = new WeakMap<
  IrcConnection,
  { generation: number; byId: Map<string, ConversationRecord> }
>();

/** The connection's cache, started afresh when the store's generation moved on. */
function cacheOf(deps: RecordDeps, conn: IrcConnection) {
  const generation = deps.store.conversations.generation;
  let cache = conversationCache.get(conn);
  if (!cache || cache.generation !== generation) {
    conversationCache.set(conn, cache = { generation, byId: new Map() });
  }
  return cache;
}

/**
 * The conversation of `name` on `conn` when the cache has it, without a wait: the per-line path
 * asks this first (an `await` per line of a burst is a promise and a turn of the microtask queue).
 */
function conversationHit(
  deps: RecordDeps,
  conn: IrcConnection,
  name: string,
): ConversationRecord | undefined {
  const hit = cacheOf(deps, conn).byId.get(name === "" ? "" : conn.conversationId(name));
  return hit && hit.connection === conn.record.id ? hit : undefined;
}

/**
 * The conversation of `name` on `conn` from the cache; on a miss read (and created when `create`,
 * as for a message: a channel event is kept only where a conversation exists).
 */
export async function cachedConversation(
  deps: RecordDeps,
  conn: IrcConnection,
  name: string,
  create = true,
): Promise<ConversationRecord | undefined> {
  const hit = conversationHit(deps, conn, name);
  if (hit) return hit;
  const cache = cacheOf(deps, conn);
  const generation = cache.generation;
  const id = name === "" ? "" : conn.conversationId(name);
  const conv = create
    ? await conversationFor(deps, conn, name)
    : await storedConversation(deps, conn, id);
  // Only while nothing was renamed or removed meanwhile (the lookup may have awaited).
  if (conv && deps.store.conversations.generation === generation) cache.byId.set(id, conv);
  return conv;
}

/**
 * Highlight keywords per user, read again when the user store says a user changed. Bounded, the
 * user asked for longest ago going first: the users whose channels are busy stay.
 */
const keywordCache = boundedCache<number, { generation: number; keywords: string[] }>(10_000);

/**
 * The highlight keywords of `userId`, from the cache while no user changed.
 *
 * @internal test seam
 */
export async function highlightKeywords(deps: RecordDeps, userId: number): Promise<string[]> {
  const hit = keywordsHit(deps, userId);
  if (hit) return hit;
  const generation = deps.store.users.generation;
  const keywords = (await deps.store.users.byId(userId))?.highlightKeywords ?? [];
  keywordCache.set(userId, { generation, keywords });
  return keywords;
}

/** The highlight keywords of `userId` when the cache has them current, without a wait. */
function keywordsHit(deps: RecordDeps, userId: number): string[] | undefined {
  const hit = keywordCache.get(userId);
  return hit && hit.generation === deps.store.users.generation ? hit.keywords : undefined;
}

/**
 * Whether `name` is one of the network's services (NickServ, ChanServ): what they say, and what
 * the user says to them (`/msg NickServ identify`), goes to the server's conversation unless one
 * with them is open, so that services open none by themselves, as in Convos.
 */
export function isService(conn: IrcConnection, name: string): boolean {
  return name !== "" && conn.serviceAccounts.size > 0 && !conn.isChannel(name) &&
    conn.serviceAccounts.has(ircLower(name));
}

/**
 * Stores a message and publishes `message` (plus `unread` and `notification` when they apply);
 * resolves with the stored line's conversation (row id) and time (µs), or undefined when it was
 * not stored.
 */
export async function recordMessage(
  deps: RecordDeps,
  conn: IrcConnection,
  m: SeenMessage,
): Promise<{ conversation: number; ts: number } | undefined> {
  let to: string | undefined;
  const service = isService(conn, m.name);
  if (service && m.own) m = { ...m, text: hideServicePassword(m.text) };
  if (service && !await cachedConversation(deps, conn, m.name, false)) {
    to = m.name;
    m = { ...m, name: "" };
  }
  const conv = conversationHit(deps, conn, m.name) ?? await cachedConversation(deps, conn, m.name);
  // Over the conversation cap: dropped.
  if (!conv) return undefined;
  const fromServer = m.name === "";
  const isPrivate = !fromServer && !conn.isChannel(m.name);
  let highlight = false;
  if (!m.own && !fromServer) {
    const keywords = isPrivate
      ? []
      : keywordsHit(deps, conn.userId) ?? await highlightKeywords(deps, conn.userId);
    highlight = isHighlight({ text: m.text, nick: conn.nick, keywords, isPrivate });
  }
  const counts = !m.own && !fromServer;
  // The unread count is kept by the writer and saved in its batch; the event goes out now.
  const { ts, unread } = await deps.store.messages.append({
    conversation: conv.id,
    userId: conn.userId,
    from: m.from,
    type: m.type,
    text: m.text,
    ts: m.ts ?? nowMicros(),
    highlight,
    unread: counts,
    serverMsgid: m.serverMsgid,
    replyTo: m.replyTo,
    senderHost: m.senderHost,
  });
  // Nobody to receive them (no /events socket open, no bus tap that wants them): a burst skips
  // building the events. Web Push taps notifications (push/notify.ts), so those still go out.
  const uid = conn.userId;
  const toMessage = deps.bus.wouldReceive(uid, "message");
  const toUnread = counts && deps.bus.wouldReceive(uid, "unread");
  // The conversation's level decides what notifies (desktop notifications and pushes): every
  // message, mentions only (a channel's default), or nothing.
  const level = notifyLevel(conv.notify, !isPrivate && !fromServer);
  const notifies = level === "all" ? counts : level === "mentions" && highlight;
  // A mention of the server's history still counts on every device, but is news to none.
  const toNotification = notifies && (!m.history || highlight) &&
    deps.bus.wouldReceive(uid, "notification");
  // The row's place, not its msgid: a msgid (base 36 of a large number) takes ~250 ns to make,
  // spent on every line of a burst that nobody reads live.
  const stored = { conversation: conv.id, ts };
  if (!toMessage && !toUnread && !toNotification) return stored;
  const where = { connection_id: conn.id, conversation_id: conv.conversationId };
  const message = { from: m.from, message: m.text, ts: formatMicros(ts), type: m.type };
  if (toMessage) {
    // The server's ids ride on the live event only: what replies and reactions name.
    const ids = {
      ...(m.serverMsgid ? { server_msgid: m.serverMsgid } : {}),
      ...(m.replyTo ? { reply_to: m.replyTo } : {}),
    };
    const ev: BusMessageEvent = {
      event: "message",
      ...where,
      ...message,
      highlight,
      msgid: msgidOf(conv.id, ts),
      ...ids,
    };
    if (m.origin !== undefined) ev.origin = m.origin;
    if (to !== undefined) ev.to = to;
    deps.bus.publish(uid, ev);
  }
  if (toUnread) deps.bus.publish(uid, { event: "unread", ...where, unread: unread ?? 0 });
  if (toNotification) {
    deps.bus.publish(uid, {
      event: "notification",
      ...where,
      ...message,
      highlight,
      ...(m.history ? { history: true as const } : {}),
    });
  }
  return stored;
}
