/**
 * Detached channels: joined on the network and stored (history, mentions, notifications), but out
 * of IRC clients' channel lists. Each hub keeps its connection's detachment options here (loaded
 * from the store, changed through `changeDetach`); the relay asks `lets` whether a live line of a
 * channel reaches IRC clients, and `seen` whether a message reattaches the channel.
 */
import { ircLower, isChannel } from "../lib/casefold.ts";
import { isHighlight } from "../irc/chat/highlight.ts";
import { actionText } from "../irc/protocol/ctcp.ts";
import { type Clock, realClock } from "../lib/clock.ts";
import type { EventBus } from "../lib/bus.ts";
import { DomainError } from "../lib/errors.ts";
import type { DetachState } from "../protocol/detach.ts";
import type { Store } from "../store/mod.ts";
import { formatMessage, type IrcMessage as Message, nickOf } from "../irc/protocol/message.ts";

/** BouncerServ's source, for the notices that relay a detached channel's lines. */
const SERVICE_SOURCE = "BouncerServ!BouncerServ@parley";

/**
 * Stores a channel's new detachment options and tells the hubs. Throws not_found when the
 * connection or the channel is not known.
 */
export async function changeDetach(
  store: Store,
  userId: number,
  connectionId: string,
  channel: string,
  change: Partial<DetachState>,
  /** Tells the hubs (a detach event) and the user's web clients (a conversation event). */
  bus: EventBus,
): Promise<DetachState> {
  const record = await store.connections.get(userId, connectionId);
  if (!record) throw new DomainError("not_found", "No such network.");
  const conv = isChannel(channel)
    ? await store.conversations.get(record.id, ircLower(channel))
    : undefined;
  if (!conv) throw new DomainError("not_found", `No such channel: ${channel}`);
  await store.conversations.setDetach(conv.id, change);
  const state = { ...conv.detach, ...change };
  const toggled = state.detached !== conv.detach.detached;
  bus.tell(userId, {
    event: "detach",
    connection_id: connectionId,
    channel: conv.name,
    state,
    toggled,
  });
  if (toggled) {
    bus.publish(userId, {
      event: "state",
      type: "conversation",
      connection_id: connectionId,
      conversation_id: conv.conversationId,
      name: conv.name,
      topic: conv.topic,
      unread: conv.unread,
      detached: state.detached,
    });
  }
  return state;
}

/** What a live line of a detached channel becomes for IRC clients. */
type Passage = "line" | "drop" | "notice";

/** Parses a duration as soju writes them (`1h30m`, `30s`, `2.5h`, `0`) into seconds. */
export function parseDuration(text: string): number | undefined {
  if (text === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(h|m|s)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(text))) {
    total += Number(m[1]) * (m[2] === "h" ? 3600 : m[2] === "m" ? 60 : 1);
    end = re.lastIndex;
  }
  return end === text.length && end > 0 ? Math.round(total) : undefined;
}

/** One connection's channels with detachment options, by casefolded name. */
export class DetachedChannels {
  /** The clock of the detach-after timers (a test's may be moved by hand). */
  static clock: Clock = realClock;
  #channels = new Map<string, { name: string; state: DetachState }>();
  #timers = new Map<string, unknown>();
  #detached = 0;

  /** `idle` is called when a channel's detach-after ran out. */
  constructor(readonly idle: (channel: string) => void = () => {}) {}

  /** Whether any channel of the connection is detached (the per-line check is this, first). */
  get any(): boolean {
    return this.#detached > 0;
  }

  isDetached(channel: string): boolean {
    return !!this.#channels.get(ircLower(channel))?.state.detached;
  }

  /** Whether the channel has options here (detached, or set to detach itself, or was). */
  has(channel: string): boolean {
    return this.#channels.has(ircLower(channel));
  }

  /** Sets a channel's options (as stored), restarting its detach-after timer. */
  set(channel: string, state: DetachState): void {
    const key = ircLower(channel);
    if (this.#channels.get(key)?.state.detached) this.#detached--;
    this.#channels.set(key, { name: channel, state });
    if (state.detached) this.#detached++;
    this.#arm(key);
  }

  /** Stops the timers (the hub is gone). */
  dispose(): void {
    for (const id of this.#timers.values()) DetachedChannels.clock.cancel(id);
    this.#timers.clear();
  }

  /** (Re)starts the channel's detach-after timer: an attached channel idle that long detaches. */
  #arm(key: string): void {
    const clock = DetachedChannels.clock;
    clock.cancel(this.#timers.get(key));
    this.#timers.delete(key);
    const c = this.#channels.get(key);
    if (!c || c.state.detached || c.state.detachAfter <= 0) return;
    this.#timers.set(
      key,
      clock.after(() => {
        this.#timers.delete(key);
        if (!this.#channels.get(key)?.state.detached) this.idle(c.name);
      }, c.state.detachAfter * 1000),
    );
  }

  /**
   * A chat line of someone else (or the user's own) in a channel: resets the detach-after timer;
   * true when it reattaches the detached channel (`-reattach-on`, default none).
   */
  seen(channel: string, text: string, nick: string): boolean {
    const key = ircLower(channel);
    const c = this.#channels.get(key);
    if (!c) return false;
    if (!c.state.detached) {
      if (c.state.detachAfter > 0) this.#arm(key);
      return false;
    }
    const on = c.state.reattachOn || "none";
    return on === "message" ||
      (on === "highlight" && isHighlight({ text, nick, keywords: [], isPrivate: false }));
  }

  /**
   * What a live line becomes for IRC clients: a detached channel's events are theirs no more, and
   * its messages come as BouncerServ notices as `-relay-detached` says (default: mentions only).
   */
  lets(m: Message, nick: string): Passage {
    const target = m.params[0] ?? "";
    if (/^\d{3}$/.test(m.command) || !this.isDetached(target)) return "line";
    if (m.command !== "PRIVMSG" && m.command !== "NOTICE") return "drop";
    if (ircLower(nickOf(m.prefix)) === ircLower(nick)) return "drop";
    const relay = this.#channels.get(ircLower(target))!.state.relayDetached || "highlight";
    if (relay === "message") return "notice";
    if (relay === "none") return "drop";
    return isHighlight({ text: m.params[1] ?? "", nick, keywords: [], isPrivate: false })
      ? "notice"
      : "drop";
  }
}

/** The BouncerServ notice that tells a client of a detached channel's line. */
export function relayNotice(m: Message, nick: string): string | undefined {
  const raw = m.params[1] ?? "";
  const action = actionText(raw);
  const text = action === undefined ? raw : `* ${action}`;
  try {
    return formatMessage({
      command: "NOTICE",
      params: [nick, `${m.params[0]}: <${nickOf(m.prefix)}> ${text}`],
      prefix: SERVICE_SOURCE,
    });
  } catch {
    return undefined;
  }
}
