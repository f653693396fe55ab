/**
 * What a channel is: its topic (stored with the conversation) and its modes. A change someone
 * made is kept in the channel's history; the topic the server tells on every join is not news.
 */
import type { HandlerTable, Inbound } from "./context.ts";
import { topicChanged, topicSetBy, topicTold } from "../topics.ts";

/** Keeps the member list's prefix modes (`+o bob`) as the server's PREFIX names them. */
function trackPrefixModes(
  cx: Inbound,
  channel: string,
  modes: { mode?: string; param?: string }[],
): void {
  const rank = cx.conn.upstream.prefix.map((p) => p.mode);
  for (const { mode, param } of modes.slice(0, 100)) {
    const letter = String(mode ?? "").slice(1);
    if (!param || !rank.includes(letter)) continue;
    cx.presence.mode(cx.convId(channel), cx.convId(param), letter, mode!.startsWith("+"), rank);
  }
}

export const CHANNEL: HandlerTable = {
  topic: async (cx, ev) => {
    const channel = String(ev.channel);
    const topic = String(ev.topic ?? "");
    const conv = await cx.deps.store.conversations.get(cx.conn.record.id, cx.convId(channel));
    if (conv && conv.topic !== ev.topic) await cx.deps.store.conversations.setTopic(conv.id, topic);
    cx.publish({ type: "topic", conversation_id: cx.convId(channel), topic, nick: ev.nick });
    // A change names its setter now; the topic told on join has its 333 next (or none).
    topicTold(
      cx.conn,
      cx.convId(channel),
      ev.nick && topic ? { by: ev.nick, at: new Date(ev.ts).toISOString() } : {},
    );
    // The user's own change is recorded: `/topic` may answer from what is kept again.
    if (ev.nick && cx.conn.isMe(String(ev.nick))) topicChanged(cx.conn, cx.convId(channel));
    if (ev.nick) await cx.keep(channel, "topic", { nick: String(ev.nick), topic }, ev.ts);
  },
  topicsetby: (cx, ev) => {
    if (ev.channel && ev.nick) topicSetBy(cx.conn, cx.convId(ev.channel), ev.nick, ev.when);
  },
  mode: async (cx, ev) => {
    const target = String(ev.target ?? "");
    const mode = [ev.raw_modes, ...(ev.raw_params ?? [])].join(" ");
    const channel = cx.conn.isChannel(target);
    if (channel) trackPrefixModes(cx, target, ev.modes ?? []);
    if (channel && ev.nick) {
      await cx.keep(target, "mode", { nick: String(ev.nick), mode }, ev.ts);
    }
    cx.publish({
      type: "mode",
      conversation_id: channel ? cx.convId(target) : "",
      target,
      mode,
      nick: ev.nick,
    });
  },
};
