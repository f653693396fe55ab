/**
 * The events of a gap, from a server that plays them back in its history (draft/event-playback):
 * a channel's joins, parts, kicks, quits, nick changes, topics and modes, and a private
 * conversation's quits and nick changes of the person, kept at their own times as the live
 * handlers keep them. History, not news: members, topics and names are what the reconnect told,
 * so nothing is changed or relayed live; each is published as a `past` event, which the web
 * client shows in its place where the conversation is open.
 */
import { type IrcMessage as Message, sourceOf } from "../../protocol/message.ts";
import { type HistoryBatch, keeps } from "./backfill.ts";
import { tagOf } from "./chat.ts";
import type { Inbound } from "./context.ts";
import type { KeptFields, KeptKind } from "../../../protocol/events.ts";
import { keptFields, storedFields } from "../../../store/event_fields.ts";

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
  // Kept, and shown where the conversation is open; changing nothing, and with no line handed
  // on: the line stays asked history, never relayed live.
  const keep = async <K extends KeptKind>(kind: K, fields: KeptFields<K>) => {
    const at = await cx.keep(channel, kind, fields, ts);
    if (at === undefined) return;
    // The row as a history page gives it: its sender and fields, bounded as they are stored.
    const row = storedFields(kind, fields);
    cx.deps.bus.publish(cx.conn.userId, {
      event: "past",
      connection_id: cx.conn.id,
      conversation_id: cx.convId(channel),
      type: kind,
      from: row.from,
      fields: keptFields(kind, row.from, row.fields) ?? fields,
      ts: at,
    });
  };
  const out = cx.out;
  cx.out = undefined;
  try {
    switch (m.command) {
      case "JOIN":
        await keep("join", { nick });
        break;
      case "PART":
        await keep("part", { nick, ...reasonOf(second) });
        break;
      case "KICK":
        await keep("kick", { nick: second, kicker: nick, ...reasonOf(third) });
        break;
      case "QUIT":
        await keep("quit", { nick, ...reasonOf(first) });
        break;
      case "NICK":
        await keep("nick_change", { old_nick: nick, new_nick: first });
        break;
      case "TOPIC":
        await keep("topic", { nick, topic: second });
        break;
      case "MODE":
        await keep("mode", { nick, mode: m.params.slice(1).join(" ") });
        break;
    }
  } finally {
    cx.out = out;
  }
}
