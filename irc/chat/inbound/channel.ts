/**
 * What a channel is: its topic (stored with the conversation) and its modes. A change someone
 * made is kept in the channel's history; the topic the server tells on every join is not news.
 */
import type { HandlerTable } from "./context.ts";

export const CHANNEL: HandlerTable = {
  topic: async (cx, ev) => {
    const channel = String(ev.channel);
    const topic = String(ev.topic ?? "");
    const conv = await cx.deps.store.conversations.get(cx.conn.record.id, cx.convId(channel));
    if (conv && conv.topic !== ev.topic) await cx.deps.store.conversations.setTopic(conv.id, topic);
    cx.publish({ type: "topic", conversation_id: cx.convId(channel), topic, nick: ev.nick });
    if (ev.nick) {
      const text = topic
        ? `${ev.nick} changed the topic to: ${topic}`
        : `${ev.nick} cleared the topic.`;
      await cx.keep(channel, "topic", ev.nick, text, ev.ts);
    }
  },
  mode: async (cx, ev) => {
    const target = String(ev.target ?? "");
    const mode = [ev.raw_modes, ...(ev.raw_params ?? [])].join(" ");
    const channel = cx.conn.isChannel(target);
    if (channel && ev.nick) {
      await cx.keep(target, "mode", ev.nick, `${ev.nick} set mode ${mode}.`, ev.ts);
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
