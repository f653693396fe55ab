/**
 * The events of a gap, from a server that plays them back in its history (draft/event-playback):
 * a channel's joins, parts, kicks, quits, nick changes, topics and modes, and a private
 * conversation's quits and nick changes of the person, kept at their own times as the live
 * handlers keep them. History, not news: members, topics and names are what the reconnect told,
 * so nothing is changed, published or relayed live; the web client shows them when it next reads
 * the conversation's history.
 */
import { type IrcMessage as Message, sourceOf } from "../../protocol/message.ts";
import { type HistoryBatch, keeps } from "./backfill.ts";
import { tagOf } from "./chat.ts";
import type { Inbound } from "./context.ts";

/**
 * The commands of a history batch kept as events, and whether their first parameter names the
 * channel. Those that name none (a quit, a nick change) are the person's own, and a private
 * conversation with them keeps them too.
 */
const PAST_EVENTS: ReadonlyMap<string, boolean> = new Map([
  ["JOIN", true],
  ["PART", true],
  ["KICK", true],
  ["TOPIC", true],
  ["MODE", true],
  ["QUIT", false],
  ["NICK", false],
]);

const reasonOf = (reason: string) => (reason ? { message: reason } : {});

/** Keeps one event line of `batch`, a conversation's history, when it lies in the gap. */
export async function keepPastEvent(
  cx: Inbound,
  m: Message,
  ts: number,
  batch: HistoryBatch,
): Promise<void> {
  const channel = batch.conversation;
  const nick = sourceOf(m.prefix).nick;
  const namesChannel = PAST_EVENTS.get(m.command);
  // A line without its source or parameters (a broken or hostile server) is no event.
  if (!nick || namesChannel === undefined) return;
  const [first = "", second = "", third = ""] = m.params;
  // A channel's event names the channel; a private conversation keeps the person's own alone.
  const belongs = cx.conn.isChannel(channel)
    ? !namesChannel || cx.convId(first) === channel
    : !namesChannel && cx.convId(nick) === channel;
  if (!belongs) return;
  if (m.command === "KICK" && !second) return;
  if (m.command === "NICK" && !first) return;
  if (!keeps(cx, batch, ts, tagOf(m.tags.get("msgid")))) return;
  // Kept with no line handed on: the line stays asked history, never relayed live.
  const out = cx.out;
  cx.out = undefined;
  try {
    switch (m.command) {
      case "JOIN":
        await cx.keep(channel, "join", { nick }, ts);
        break;
      case "PART":
        await cx.keep(channel, "part", { nick, ...reasonOf(second) }, ts);
        break;
      case "KICK":
        await cx.keep(channel, "kick", { nick: second, kicker: nick, ...reasonOf(third) }, ts);
        break;
      case "QUIT":
        await cx.keep(channel, "quit", { nick, ...reasonOf(first) }, ts);
        break;
      case "NICK":
        await cx.keep(channel, "nick_change", { old_nick: nick, new_nick: first }, ts);
        break;
      case "TOPIC":
        await cx.keep(channel, "topic", { nick, topic: second }, ts);
        break;
      case "MODE":
        await cx.keep(channel, "mode", { nick, mode: m.params.slice(1).join(" ") }, ts);
        break;
    }
  } finally {
    cx.out = out;
  }
}
