/**
 * What a channel is: its topic (stored with the conversation) and its modes, and its key (+k),
 * kept with the conversation to join it again after a reconnect. A change someone made is kept in
 * the channel's history; the topic the server tells on every join is not news.
 */
import type { HandlerTable, Inbound } from "./context.ts";
import { type IrcMessage, sourceOf } from "../../protocol/message.ts";
import { type ModeChange, modeChanges } from "../../protocol/modes.ts";
import {
  RPL_CHANNELMODEIS,
  RPL_NOTOPIC,
  RPL_TOPIC,
  RPL_TOPICWHOTIME,
} from "../../protocol/numerics.ts";
import { channelKey } from "../../../store/conversations.ts";
import { storedConversation } from "../record.ts";
import { topicChanged, topicSetBy, topicTold } from "../topics.ts";
import { last } from "./answers.ts";
import { prefixOf } from "./membership.ts";

/** A channel mode string's changes, by the server's CHANMODES and PREFIX. */
function changesOf(cx: Inbound, modes: string, params: string[]) {
  return modeChanges(modes, params, cx.conn.upstream.chanmodes, rank(cx));
}

/** The prefix modes, highest first (`o`, `v`...). */
const rank = (cx: Inbound) => prefixOf(cx).map((p) => p.mode);

/** Keeps the member list's prefix modes (`+o bob`) as the server's PREFIX names them. */
function trackPrefixModes(cx: Inbound, channel: string, changes: ModeChange[]): void {
  const modes = rank(cx);
  for (const { mode, param } of changes) {
    const letter = mode.slice(1);
    if (!param || !modes.includes(letter)) continue;
    cx.presence.mode(cx.convId(channel), cx.convId(param), letter, mode.startsWith("+"), modes);
  }
}

/**
 * The key mode changes set: the key, "" when they take it off (`-k`), undefined when they say
 * nothing of it, or hide it (`+k *`, or no parameter, as servers show it to whom they hide it).
 */
function keyOf(changes: ModeChange[]): string | undefined {
  let key: string | undefined;
  for (const { mode, param } of changes) {
    if (mode === "-k") key = "";
    else if (mode === "+k") key = channelKey(param) ?? key;
  }
  return key;
}

/**
 * Keeps what the server told of a channel's key (never logged: a secret of its members), when the
 * channel is one the user is in as far as Parley keeps.
 */
async function keepKey(cx: Inbound, channel: string, key: string): Promise<void> {
  const conv = await storedConversation(cx.deps, cx.conn, cx.convId(channel));
  if (conv?.joined && conv.key !== key) await cx.deps.store.conversations.setKey(conv.id, key);
}

/** A topic told (on join or asked: no nick) or changed (by `nick`). */
async function topic(cx: Inbound, channel: string, text: string, nick: string, ts: number) {
  // A topic of no channel (a broken or hostile server) would land on the server conversation.
  if (!cx.conn.isChannel(channel)) return;
  const conv = await cx.deps.store.conversations.get(cx.conn.record.id, cx.convId(channel));
  if (conv && conv.topic !== text) await cx.deps.store.conversations.setTopic(conv.id, text);
  // A change is stored first: the event carries the stored line's time (as a join's does).
  const kept = nick ? await cx.keep(channel, "topic", { nick, topic: text }, ts) : undefined;
  cx.publish({
    type: "topic",
    conversation_id: cx.convId(channel),
    topic: text,
    ...(nick ? { nick } : {}),
    ...(kept ? { ts: kept } : {}),
  });
  // A change names its setter now; the topic told on join has its 333 next (or none).
  topicTold(
    cx.conn,
    cx.convId(channel),
    nick && text ? { by: nick, at: new Date(ts / 1000).toISOString() } : {},
  );
  // The user's own change is recorded: `/topic` may answer from what is kept again.
  if (nick && cx.conn.isMe(nick)) topicChanged(cx.conn, cx.convId(channel));
}

/**
 * An invitation to the user (another's, told to channel operators by invite-notify, is the IRC
 * clients' news only): said in the server conversation, where it stays, and as an `invite` event,
 * which the web client shows where the user is, with a button that joins.
 */
async function invited(cx: Inbound, m: IrcMessage, ts: number): Promise<void> {
  const [whom = "", channel = ""] = m.params;
  const nick = sourceOf(m.prefix).nick;
  if (!nick || !cx.conn.isMe(whom) || !cx.conn.isChannel(channel) || channel.length > 200) return;
  await cx.server(`${nick} invited you to ${channel}.`, ts);
  cx.publish({ type: "invite", conversation_id: cx.convId(channel), name: channel, nick });
}

export const CHANNEL: HandlerTable = {
  INVITE: invited,
  TOPIC: (cx, m, ts) =>
    topic(cx, m.params[0] ?? "", m.params[1] ?? "", sourceOf(m.prefix).nick, ts),
  [RPL_TOPIC]: (cx, m, ts) => topic(cx, m.params[1] ?? "", last(m), "", ts),
  [RPL_NOTOPIC]: (cx, m, ts) => topic(cx, m.params[1] ?? "", "", "", ts),
  [RPL_TOPICWHOTIME]: (cx, m) => {
    const [, channel, mask, when] = m.params;
    const nick = sourceOf(mask ?? "").nick;
    if (channel && nick) topicSetBy(cx.conn, cx.convId(channel), nick, when);
  },
  // A channel's modes, asked by Parley after the user's join (membership.ts), by the web client or
  // by an attached IRC client: to members they show its key, and a channel without `k` has none.
  [RPL_CHANNELMODEIS]: async (cx, m) => {
    const [, channel = "", modes = ""] = m.params;
    if (!cx.conn.isChannel(channel)) return;
    const told = keyOf(
      changesOf(cx, modes.startsWith("+") ? modes : `+${modes}`, m.params.slice(3)),
    );
    const key = told ?? (modes.includes("k") ? undefined : "");
    if (key !== undefined) await keepKey(cx, channel, key);
  },
  MODE: async (cx, m, ts) => {
    const target = m.params[0] ?? "";
    const nick = sourceOf(m.prefix).nick;
    const mode = m.params.slice(1).join(" ");
    const channel = cx.conn.isChannel(target);
    // One reading of the mode string for the members' prefix modes and the key.
    const changes = channel ? changesOf(cx, m.params[1] ?? "", m.params.slice(2)) : [];
    if (channel) trackPrefixModes(cx, target, changes);
    const key = keyOf(changes);
    if (key !== undefined) await keepKey(cx, target, key);
    const kept = channel && nick ? await cx.keep(target, "mode", { nick, mode }, ts) : undefined;
    cx.publish({
      type: "mode",
      conversation_id: channel ? cx.convId(target) : "",
      target,
      mode,
      ...(nick ? { nick } : {}),
      ...(kept ? { ts: kept } : {}),
    });
  },
};
