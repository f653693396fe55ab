/**
 * Who is where: NAMES, joins, parts, kicks, quits and nick changes. Each is published on the bus
 * and kept in the history of the channels it concerns (quits and nick changes in every channel
 * the person was seen in); the user's own join creates the conversation, and a private
 * conversation follows its person to a new nick. Who is away is followed too (published, not
 * kept): from AWAY lines where the server has `away-notify`, and from one WHO after each join.
 */
import { log } from "../../../lib/log.ts";
import { formatMicros } from "../../../protocol/time.ts";
import { ircLine, type IrcMessage as Message, sourceOf } from "../../protocol/message.ts";
import {
  ERR_BADCHANNELKEY,
  ERR_BANNEDFROMCHAN,
  ERR_CHANNELISFULL,
  ERR_INVITEONLYCHAN,
  ERR_NOCHANMODES,
  ERR_SECUREONLYCHAN,
  ERR_TOOMANYCHANNELS,
  ERR_UNAVAILRESOURCE,
  RPL_AWAY,
  RPL_ENDOFNAMES,
  RPL_ENDOFWHO,
  RPL_NOWAWAY,
  RPL_UNAWAY,
} from "../../protocol/numerics.ts";
import { conversationFor, renamedConversation, storedConversation } from "../record.ts";
import { publishFrozen } from "../frozen.ts";
import { MAX_WHO_MEMBERS } from "../presence.ts";
import type { HandlerTable, Inbound } from "./context.ts";
import { last, namesOf, whoOf } from "./answers.ts";

/** A part's, kick's or quit's reason as kept: absent when none was given. */
const reasonOf = (reason: unknown) => (reason ? { message: String(reason) } : {});

/** Records that `nick` is away (with `message`) or back, and tells the user's clients if new. */
function markAway(cx: Inbound, nick: string, away: boolean, message?: unknown): void {
  const text = away && message ? String(message).slice(0, 300) : undefined;
  if (!nick || !cx.presence.setAway(cx.convId(nick), away, text)) return;
  cx.publish({ type: "away", nick, away, ...(text ? { message: text } : {}) });
}

/**
 * Asks a channel's modes after the user joined it: their answer (RPL_CHANNELMODEIS, channel.ts)
 * tells members its key, whichever client joined with it (the web client, an attached IRC client),
 * and Parley keeps the key to join again after a reconnect. Not after a rejoin, which sent the key.
 */
function askModes(cx: Inbound, channel: string): void {
  const lost = (err: unknown) => {
    log.debug("mode query not sent", { connection: cx.conn.id, channel, error: String(err) });
  };
  try {
    cx.conn.send(ircLine("MODE", channel), { query: true }).catch(lost);
  } catch (err) {
    // A channel name that cannot be sent back.
    lost(err);
  }
}

/** A join: the user's own creates the conversation; anyone's is published and kept. */
export async function join(cx: Inbound, channel: string, nick: string, ts: number): Promise<void> {
  const { conn, deps } = cx;
  // The user's own join (a rejoin too) starts the list afresh; the server's NAMES fills it.
  if (conn.isMe(nick)) cx.presence.joined(cx.convId(channel));
  cx.presence.join(cx.convId(channel), cx.convId(nick), nick);
  if (conn.isMe(nick)) {
    // A rejoin sent the key Parley keeps; any other join may have been made with a new one.
    const rejoin = cx.rejoins.delete(cx.convId(channel));
    const conv = await conversationFor(deps, conn, channel);
    // Over the conversation cap: not kept either (keep says so to whoever waits for it).
    if (!conv) return void await cx.keep(channel, "join", { nick }, ts);
    if (!conv.joined) await deps.store.conversations.setJoined(conv.id, true);
    // Joined: the channel takes messages again (Convos's client enables it on this event).
    publishFrozen(deps.bus, conn.userId, [{ ...conv, joined: true }], "");
    if (!rejoin) askModes(cx, channel);
  }
  // Stored first: the event carries the stored line's time, so that a client showing it live and
  // then the history page with it shows one line, not two.
  const kept = await cx.keep(channel, "join", { nick }, ts);
  cx.publish({
    type: "join",
    conversation_id: cx.convId(channel),
    nick,
    ...(kept ? { ts: kept } : {}),
  });
}

/**
 * The server refused to join a channel the user is in as far as Parley kept (a rejoin after a
 * reconnect, or the first join of a new connection): full (471), invite only (473), banned (474),
 * a wrong key (475), a registered nick needed (477), TLS needed (489), too many channels (405) or
 * the channel held for a while after a netsplit (437, which names a nick when it refuses one:
 * that is not a channel and is left to the nick's handlers). The channel must not look joined:
 * the refusal is said in its own history (the server's conversation has it too, server.ts), it is
 * no longer joined, as after a kick, and its clients are told it is frozen, with the server's
 * reason. A wrong key is forgotten. Joining again (`/join #chan key`) brings it back.
 */
async function joinRefused(cx: Inbound, m: Message, ts: number): Promise<void> {
  const { conn, deps } = cx;
  const channel = m.params[1] ?? "";
  if (!channel || !conn.isChannel(channel)) return;
  const id = cx.convId(channel);
  cx.rejoins.delete(id);
  const conv = await storedConversation(deps, conn, id);
  // Not a channel Parley keeps as joined (a join typed for a new one), or one the user is in.
  if (!conv?.joined || cx.presence.isIn(id, cx.convId(conn.nick))) return;
  const reason = last(m).slice(0, 300).replace(/[.\s]+$/, "") || "Cannot join channel";
  // Whoever waits for its members (NAMES on attach) is not kept waiting for a join that failed.
  cx.presence.part(id, cx.convId(conn.nick), true);
  await cx.leave(channel);
  if (m.command === ERR_BADCHANNELKEY && conv.key) {
    await deps.store.conversations.setKey(conv.id, "");
  }
  const hint = m.command === ERR_BADCHANNELKEY ? ` Join it with /join ${conv.name} <key>.` : "";
  // Kept without a live message: the server.ts handler's `error` event shows it live already.
  await deps.store.messages.append({
    conversation: conv.id,
    userId: conn.userId,
    from: conn.url.host,
    type: "error",
    text: `Could not join ${conv.name}: ${reason}.${hint}`,
    ts,
    highlight: false,
  });
  publishFrozen(deps.bus, conn.userId, [{ ...conv, joined: false }], reason);
}

/** The PREFIX of the server (ISUPPORT) as symbols and modes, as its upstream state reads it. */
export function prefixOf(cx: Inbound): { mode: string; symbol: string }[] {
  return cx.conn.upstream.prefix.map((p) => ({ mode: p.mode, symbol: p.symbol }));
}

/** The nick of a line's source. */
const nickOf = (m: { prefix: string }) => sourceOf(m.prefix).nick;

export const MEMBERSHIP: HandlerTable = {
  // Before server.ts's handler of the same numerics (HANDLERS' order), which says them in the
  // server's conversation and publishes them as an `error`.
  [ERR_CHANNELISFULL]: joinRefused,
  [ERR_INVITEONLYCHAN]: joinRefused,
  [ERR_BANNEDFROMCHAN]: joinRefused,
  [ERR_BADCHANNELKEY]: joinRefused,
  [ERR_NOCHANMODES]: joinRefused,
  [ERR_SECUREONLYCHAN]: joinRefused,
  [ERR_TOOMANYCHANNELS]: joinRefused,
  [ERR_UNAVAILRESOURCE]: joinRefused,
  [RPL_ENDOFNAMES]: (cx, m, _ts, got) => {
    const { presence, convId, conn } = cx;
    const channel = m.params[1] ?? "";
    const users = namesOf(got?.lines ?? [], prefixOf(cx))
      .filter((u) => u.nick)
      .map((u) => ({ id: convId(u.nick), nick: u.nick, modes: u.modes }));
    // After the user's join, one WHO says who is away (AWAY lines only tell of changes, and not
    // every server sends them); it waits behind the user's own lines.
    if (presence.names(convId(channel), users)) {
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
  [RPL_ENDOFWHO]: (cx, _m, _ts, got) => {
    for (const u of whoOf(got?.lines ?? []).slice(0, MAX_WHO_MEMBERS)) {
      if (u.nick) markAway(cx, u.nick, u.away);
    }
  },
  // Someone's away-notify line: with a reason away, without one back.
  AWAY: (cx, m) => {
    const message = m.params[0] ?? "";
    markAway(cx, nickOf(m), message !== "", message);
  },
  // The user's own (306) has the server's words, not the user's message.
  [RPL_NOWAWAY]: (cx) => markAway(cx, cx.conn.nick, true, ""),
  [RPL_UNAWAY]: (cx) => markAway(cx, cx.conn.nick, false),
  // The away reply to a message (one in a WHOIS is the WHOIS's: replies.ts).
  [RPL_AWAY]: (cx, m) => markAway(cx, m.params[1] ?? "", true, last(m) || "is away"),
  JOIN: async (cx, m, ts) => {
    const nick = nickOf(m);
    for (const channel of (m.params[0] ?? "").split(",").slice(0, 100)) {
      if (channel) await join(cx, channel, nick, ts);
    }
  },
  PART: async (cx, m, ts) => {
    const nick = nickOf(m);
    const message = m.params[1] ?? "";
    const me = cx.conn.isMe(nick);
    for (const channel of (m.params[0] ?? "").split(",").slice(0, 100)) {
      if (!channel) continue;
      cx.presence.part(cx.convId(channel), cx.convId(nick), me);
      const kept = await cx.keep(channel, "part", { nick, ...reasonOf(message) }, ts);
      if (me) await cx.leave(channel);
      const part = { conversation_id: cx.convId(channel), nick, message };
      cx.publish({ type: "part", ...part, ...(kept ? { ts: kept } : {}) });
    }
  },
  KICK: async (cx, m, ts) => {
    const [channel = "", kicked = ""] = m.params;
    // A KICK without its channel or its person (a broken or hostile server) changes nothing.
    if (!channel || !kicked) return;
    const kicker = nickOf(m);
    const message = m.params[2] ?? "";
    const me = cx.conn.isMe(kicked);
    cx.presence.part(cx.convId(channel), cx.convId(kicked), me);
    const kick = { nick: kicked, kicker, ...reasonOf(message) };
    const kept = await cx.keep(channel, "kick", kick, ts);
    if (me) await cx.leave(channel);
    // Convos sends a kick as a part with the kicker.
    cx.publish({
      type: "part",
      conversation_id: cx.convId(channel),
      nick: kicked,
      kicker,
      message,
      ts: kept ?? formatMicros(ts),
    });
  },
  QUIT: async (cx, m, ts) => {
    const nick = nickOf(m);
    const message = m.params[0] ?? "";
    cx.publish({ type: "quit", nick, message });
    const quit = { nick, ...reasonOf(message) };
    for (const channel of [...cx.presence.quit(cx.convId(nick)), nick]) {
      await cx.keep(channel, "quit", quit, ts);
    }
  },
  NICK: async (cx, m, ts) => {
    const { conn, deps } = cx;
    const [nick, next] = [nickOf(m), m.params[0] ?? ""];
    // A NICK without a new nick (a broken or hostile server) changes nothing.
    if (!nick || !next) return;
    cx.publish({ type: "nick_change", old_nick: nick, new_nick: next });
    const change = { old_nick: nick, new_nick: next };
    for (const channel of [...cx.presence.rename(cx.convId(nick), cx.convId(next), next), nick]) {
      await cx.keep(channel, "nick_change", change, ts);
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
