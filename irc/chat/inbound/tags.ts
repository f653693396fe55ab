/**
 * Lines of tags alone (IRCv3 TAGMSG): someone typing (`+typing`) or reacting to a message
 * (`+draft/react` with `+draft/reply`, the server msgid of the message). Typing is a state event
 * for the clients open now; a reaction is kept too, as a `react` line of its conversation. The
 * user's own come back as the server's echo (echo-message), so every device sees them.
 */
import type { HandlerTable } from "./context.ts";
import { sourceOf } from "../../protocol/message.ts";
import { tagOf } from "./chat.ts";
import { isIgnored } from "../ignore.ts";

const TYPING = new Set(["active", "paused", "done"]);

export const TAGS: HandlerTable = {
  async TAGMSG(cx, m, ts) {
    const { conn } = cx;
    const target = m.params[0] ?? "";
    const { nick, user, host } = sourceOf(m.prefix);
    if (!nick || !target) return;
    const own = conn.isMe(nick);
    if (!own) {
      // Someone ignored types and reacts unseen, as their messages are.
      const who = { nick, user: user || undefined, host: host || undefined };
      const ignored = isIgnored(cx.deps.store, conn.userId, who);
      if (ignored === true || (ignored !== false && await ignored)) return;
    }
    // As for a message: a channel's, or the private conversation with the other person.
    const name = conn.isChannel(target) ? target : own ? target : nick;
    const where = { conversation_id: cx.convId(name), nick };
    const typing = tagOf(m.tags.get("+typing"));
    if (typing && TYPING.has(typing)) cx.publish({ type: "typing", ...where, typing });
    const react = tagOf(m.tags.get("+draft/react"));
    const replyTo = tagOf(m.tags.get("+draft/reply"));
    if (react && replyTo) {
      const text = react.slice(0, 32);
      // Kept as a line of its conversation, so a reload counts it under its message.
      const kept = await cx.keep(name, "react", { nick, react: text, reply_to: replyTo }, ts);
      cx.publish({
        type: "react",
        ...where,
        react: text,
        reply_to: replyTo,
        ...(kept ? { ts: kept } : {}),
      });
    }
  },
};
