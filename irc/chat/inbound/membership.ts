/**
 * Who is where: NAMES, joins, parts, kicks, quits and nick changes. Each is published on the bus
 * and kept in the history of the channels it concerns (quits and nick changes in every channel
 * the person was seen in); the user's own join creates the conversation, and a private
 * conversation follows its person to a new nick. Who is away is followed too (published, not
 * kept): from AWAY lines where the server has `away-notify`, and from one WHO after each join.
 */
import { log } from "../../../lib/log.ts";
import { formatMicros } from "../../../lib/time.ts";
import { ircLine } from "../../protocol/message.ts";
import { conversationFor, renamedConversation, storedConversation } from "../record.ts";
import { publishFrozen } from "../frozen.ts";
import { MAX_WHO_MEMBERS } from "../presence.ts";
import type { HandlerTable, Inbound, Timed } from "./context.ts";

/** A part's, kick's or quit's reason as kept: absent when none was given. */
const reasonOf = (reason: unknown) => (reason ? { message: String(reason) } : {});

/** Records that `nick` is away (with `message`) or back, and tells the user's clients if new. */
function markAway(cx: Inbound, nick: string, away: boolean, message?: unknown): void {
  const text = away && message ? String(message).slice(0, 300) : undefined;
  if (!nick || !cx.presence.setAway(cx.convId(nick), away, text)) return;
  cx.publish({ type: "away", nick, away, ...(text ? { message: text } : {}) });
}

/** A join: the user's own creates the conversation; anyone's is published and kept. */
export async function join(cx: Inbound, ev: Timed<"join">): Promise<void> {
  const { conn, deps } = cx;
  const channel = String(ev.channel);
  const nick = String(ev.nick);
  // The user's own join (a rejoin too) starts the list afresh; the server's NAMES fills it.
  if (conn.isMe(nick)) cx.presence.joined(cx.convId(channel));
  cx.presence.join(cx.convId(channel), cx.convId(nick), nick);
  if (conn.isMe(nick)) {
    const conv = await conversationFor(deps, conn, channel);
    // Over the conversation cap: not kept either (keep says so to whoever waits for it).
    if (!conv) return void await cx.keep(channel, "join", { nick }, ev.ts);
    if (!conv.joined) await deps.store.conversations.setJoined(conv.id, true);
    // Joined: the channel takes messages again (Convos's client enables it on this event).
    publishFrozen(deps.bus, conn.userId, [{ ...conv, joined: true }], "");
  }
  // Stored first: the event carries the stored line's time, so that a client showing it live and
  // then the history page with it shows one line, not two.
  const ts = await cx.keep(channel, "join", { nick }, ev.ts);
  cx.publish({ type: "join", conversation_id: cx.convId(channel), nick, ...(ts ? { ts } : {}) });
}

export const MEMBERSHIP: HandlerTable = {
  userlist: ({ presence, convId, conn }, ev) => {
    const users = (ev.users ?? []).filter((u) => u.nick).map((u) => ({
      id: convId(u.nick),
      nick: String(u.nick),
      modes: (u.modes ?? []).map(String),
    }));
    // After the user's join, one WHO says who is away (AWAY lines only tell of changes, and not
    // every server sends them); it waits behind the user's own lines.
    if (presence.names(convId(ev.channel), users)) {
      const channel = String(ev.channel);
      const lost = (err: unknown) => {
        log.debug("who not sent", { connection: conn.id, channel, error: String(err) });
      };
      try {
        conn.send(ircLine("WHO", channel), { answer: true }).catch(lost);
      } catch (err) {
        // A channel name that cannot be sent back.
        lost(err);
      }
    }
  },
  wholist: (cx, ev) => {
    for (const u of (ev.users ?? []).slice(0, MAX_WHO_MEMBERS)) {
      if (u.nick) markAway(cx, String(u.nick), !!u.away);
    }
  },
  // The user's own (306) has the server's words, not the user's message.
  away: (cx, ev) => markAway(cx, String(ev.nick ?? ""), true, ev.self ? "" : ev.message),
  back: (cx, ev) => markAway(cx, String(ev.nick ?? ""), false),
  join,
  part: async (cx, ev) => {
    const channel = String(ev.channel);
    const nick = String(ev.nick);
    const me = cx.conn.isMe(nick);
    cx.presence.part(cx.convId(channel), cx.convId(nick), me);
    const ts = await cx.keep(channel, "part", { nick, ...reasonOf(ev.message) }, ev.ts);
    if (me) await cx.leave(channel);
    const part = { conversation_id: cx.convId(channel), nick, message: ev.message };
    cx.publish({ type: "part", ...part, ...(ts ? { ts } : {}) });
  },
  kick: async (cx, ev) => {
    const channel = String(ev.channel);
    const kicked = String(ev.kicked);
    const me = cx.conn.isMe(kicked);
    cx.presence.part(cx.convId(channel), cx.convId(kicked), me);
    const kick = { nick: kicked, kicker: String(ev.nick), ...reasonOf(ev.message) };
    const ts = await cx.keep(channel, "kick", kick, ev.ts);
    if (me) await cx.leave(channel);
    // Convos sends a kick as a part with the kicker.
    cx.publish({
      type: "part",
      conversation_id: cx.convId(channel),
      nick: kicked,
      kicker: ev.nick,
      message: ev.message,
      ts: ts ?? formatMicros(ev.ts),
    });
  },
  quit: async (cx, ev) => {
    const nick = String(ev.nick);
    cx.publish({ type: "quit", nick, message: ev.message });
    const quit = { nick, ...reasonOf(ev.message) };
    for (const channel of [...cx.presence.quit(cx.convId(nick)), nick]) {
      await cx.keep(channel, "quit", quit, ev.ts);
    }
  },
  nick: async (cx, ev) => {
    const { conn, deps } = cx;
    const [nick, next] = [String(ev.nick), String(ev.new_nick)];
    cx.publish({ type: "nick_change", old_nick: nick, new_nick: next });
    const change = { old_nick: nick, new_nick: next };
    for (const channel of [...cx.presence.rename(cx.convId(nick), cx.convId(next), next), nick]) {
      await cx.keep(channel, "nick_change", change, ev.ts);
    }
    // A private conversation follows the person to their new nick (unless one exists already).
    const old = await storedConversation(deps, conn, cx.convId(nick));
    const newId = cx.convId(next);
    if (old && !conn.isMe(next) && !(await storedConversation(deps, conn, newId))) {
      await deps.store.conversations.rename(old.id, newId, next);
      renamedConversation(conn, old.conversationId, newId);
      cx.publish({
        type: "rename",
        old_conversation_id: old.conversationId,
        conversation_id: newId,
        name: next,
      });
    }
  },
};
