/**
 * What the user types: a plain message, or a slash command (`/join #x`, `/msg nick hi`...).
 * The commands are listed once, in protocol/command_table.ts (usage, description, who and where);
 * here is one small handler per entry, and runCommand checks who and where before it runs.
 */
import type { SendResult } from "../../protocol/events.ts";
import { denied, invalid } from "../../lib/errors.ts";
import type { ConnectionRecord } from "../../store/connections.ts";
import type { ConversationRecord } from "../../store/conversations.ts";
import type { IrcConnection } from "../engine/connection.ts";
import type { IrcEventName, IrcEvents, ListedChannelPayload } from "../engine/events.ts";
import {
  isTopicChanging,
  topicChanging,
  topicSetBy,
  type TopicSetter,
  topicSetter,
} from "./topics.ts";
import { conversationFor, hostOf, isService, type RecordDeps, recordMessage } from "./record.ts";
import {
  type CommandSpec,
  findCommand,
  mayUse,
  type ServerCommandName,
} from "../../protocol/command_table.ts";
import { type IrcLine, ircLine, LineError, quotedLine } from "../protocol/message.ts";
import { isPlainNick, maskMatches, normalizeMask, type Who } from "../mask.ts";
import { ignore, unignore } from "./ignore.ts";

/** What a command may use. */
interface CommandContext {
  deps: RecordDeps;
  record: ConnectionRecord;
  /** The live connection, when there is one. */
  conn: IrcConnection | undefined;
  /** The conversation the command was typed in ("" for the server's). */
  conversationId: string;
  /** That conversation, when it exists. */
  conversation: ConversationRecord | undefined;
  /** Client-only tags for the line said (an attached IRC client's, as it wrote them). */
  tags?: Record<string, string>;
  /**
   * The sender's token for the line said (or quoted): on its stored copy's bus event
   * (chat/record.ts), and told with each of its lines as written (engine/outlet.ts `wrote`).
   */
  origin?: string;
  /** An attached client's query: written after everyone's own lines (IrcConnection.send). */
  background?: boolean;
  /** An attached IRC client's line: its answers are routed by the listener, not the web's. */
  relayed?: boolean;
  /** A raw line's: told as it is written; a line it returns goes right after it. */
  written?: () => IrcLine | undefined;
  /** Saves an over-long message as a file and returns the line to send instead (chat/paste.ts). */
  paste?: (text: string) => Promise<string | undefined>;
  /** Connection control, from the manager. */
  control: {
    connect(): Promise<void>;
    disconnect(): Promise<void>;
    reconnect(): Promise<void>;
    setNick(nick: string): Promise<void>;
  };
}

/** What a command answers (the `sent` event carries it): declared once, with the socket frames, in protocol/events.ts. */
export type CommandResult = SendResult;

type Command = (ctx: CommandContext, args: string) => Promise<CommandResult>;

const NICK = /^[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}$/;
/** A CTCP request's type as `/ctcp` takes it: VERSION, PING, TIME, CLIENTINFO... */
const CTCP_TYPE = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
/** The longest text `/ctcp` sends: with the nick and the type, the line stays within 512 bytes. */
const CTCP_TEXT = 300;

// The message is the input at fault; the HTTP edge maps the pointer for REST and the socket.
function fail(message: string): never {
  throw invalid(message, "/body/message");
}

function live(ctx: CommandContext): IrcConnection {
  const conn = ctx.conn;
  if (!conn || conn.state !== "connected") fail(`${ctx.record.connectionId} is not connected.`);
  return conn;
}

/**
 * Deletes a conversation and tells every device of the user: a `part` of the user's own with
 * `closed` takes it off their lists.
 */
async function removeConversation(ctx: CommandContext, rowId: number, id: string): Promise<void> {
  await ctx.deps.store.conversations.remove(rowId);
  ctx.deps.bus.publish(ctx.record.userId, {
    event: "state",
    type: "part",
    connection_id: ctx.record.connectionId,
    conversation_id: id,
    nick: ctx.conn?.nick ?? "",
    closed: true,
  });
}

/** Fails with the command's usage, as the table writes it. */
function usage(name: ServerCommandName): never {
  fail(`Usage: ${findCommand(name)?.usage}`);
}

/** The current conversation's name as IRC knows it; fails in the server conversation. */
function here(ctx: CommandContext): string {
  // Convos's words.
  if (!ctx.conversationId) fail("Cannot send without target.");
  return ctx.conversation?.name ?? ctx.conversationId;
}

function isChannel(ctx: CommandContext, name: string): boolean {
  // Without a connection the server's channel prefixes are unknown: RFC 2811's usual ones.
  return ctx.conn ? ctx.conn.isChannel(name) : /^[#&!+]/.test(name);
}

/** The current channel; fails elsewhere, naming `what` (the command) in the error. */
function channelHere(ctx: CommandContext, what: string): string {
  const name = here(ctx);
  if (!isChannel(ctx, name)) fail(`${what} works in a channel.`);
  return name;
}

/**
 * Refuses a command the user may not run, or one typed where it does not work.
 *
 * @internal test seam
 */
export async function checkAllowed(ctx: CommandContext, spec: CommandSpec): Promise<void> {
  if (spec.who !== "everyone") {
    const user = await ctx.deps.store.users.byId(ctx.record.userId);
    if (!mayUse(spec, user?.roles ?? [])) throw denied(`Only an admin may use /${spec.name}.`);
  }
  if (spec.where === "conversation") here(ctx);
  if (spec.where === "channel") channelHere(ctx, `/${spec.name}`);
}

function firstWord(args: string): [string, string] {
  const m = /^(\S+)\s*(.*)$/s.exec(args.trim());
  return m ? [m[1], m[2]] : ["", ""];
}

/** Sends text to a target and stores it as the user's own (unless the server echoes it back). */
async function say(
  ctx: CommandContext,
  target: string,
  text: string,
  type: "privmsg" | "action" | "notice",
): Promise<CommandResult> {
  const conn = live(ctx);
  await keepSaid(ctx, conn, target, type, await sendSaid(ctx, conn, target, text, type));
  return { conversation_id: conn.conversationId(target) };
}

/** Sends text to a target; resolves with the lines that went out. */
async function sendSaid(
  ctx: CommandContext,
  conn: IrcConnection,
  target: string,
  text: string,
  type: "privmsg" | "action" | "notice",
): Promise<string[]> {
  if (!text.trim()) fail("The message is empty.");
  // Too long or too many lines for the network: its first line and a link to the text instead.
  text = (await ctx.paste?.(text)) ?? text;
  return await conn.say(target, text, type, ctx.tags, ctx.origin).catch((err) => {
    // A target no line can carry (`/msg :x hi`) is the user's input at fault.
    if (err instanceof LineError) fail(err.message);
    throw err;
  });
}

/** Stores the lines the user sent, unless the server echoes them back (then inbound does). */
async function keepSaid(
  ctx: CommandContext,
  conn: IrcConnection,
  target: string,
  type: "privmsg" | "action" | "notice",
  lines: string[],
): Promise<void> {
  if (conn.echoes) return;
  // The user's own source as the server shows it, as an echo would have carried it.
  const senderHost = hostOf(conn.upstream.source, conn.nick);
  for (const line of lines) {
    await recordMessage(ctx.deps, conn, {
      name: target,
      from: conn.nick,
      type: type === "privmsg" ? "private" : type,
      text: line,
      own: true,
      origin: ctx.origin,
      senderHost,
    });
  }
}

/**
 * Runs `act` (which sends a command), then a PING, and resolves with the first `event` that
 * passes `test`, or undefined once the server answered the PING first: a server answers in order,
 * so the PONG means the command's answer did not come. Listening starts before `act`.
 */
async function answerBeforePong<K extends IrcEventName>(
  conn: IrcConnection,
  event: K,
  test: (ev: IrcEvents[K]) => boolean,
  act: () => Promise<void>,
  timeoutMs = 10_000,
): Promise<IrcEvents[K] | undefined> {
  const client = conn.client!;
  const token = `parley-${crypto.randomUUID().slice(0, 8)}`;
  let done: (ev: IrcEvents[K] | undefined) => void = () => {};
  const answer = new Promise<IrcEvents[K] | undefined>((resolve) => {
    const onEvent = (ev: IrcEvents[K]) => test(ev) && done(ev);
    const onPong = (ev: IrcEvents["pong"]) => ev?.message === token && done(undefined);
    const timer = setTimeout(() => done(undefined), timeoutMs);
    done = (ev) => {
      clearTimeout(timer);
      client.off(event, onEvent);
      client.off("pong", onPong);
      resolve(ev);
    };
    client.on(event, onEvent);
    client.on("pong", onPong);
  });
  try {
    await act();
    await conn.send(ircLine("PING", token));
  } catch (err) {
    done(undefined);
    throw err;
  }
  return await answer;
}

/** The channel a bare name means: `#name` (or the server's first channel prefix without `#`). */
function asChannel(conn: IrcConnection, name: string): string {
  if (conn.isChannel(name)) return name;
  const types = conn.upstream.chantypes;
  const prefixes = types?.length ? types : ["#"];
  return (prefixes.includes("#") ? "#" : prefixes[0]) + name;
}

/** A line from the command's words; words the line cannot carry are the user's input at fault. */
function line(build: () => IrcLine): IrcLine {
  try {
    return build();
  } catch (err) {
    if (err instanceof LineError) fail(err.message);
    throw err;
  }
}

/** Sends `command` with `params` on the live connection. */
async function send(
  ctx: CommandContext,
  command: string,
  ...params: string[]
): Promise<CommandResult> {
  const conn = live(ctx);
  await conn.send(line(() => ircLine(command, ...params)));
  return {};
}

/** Words of `text` as separate parameters (a mode string and its arguments). */
const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);

/** Waits for one event from the live client that passes `test`, collecting until `done`. */
function collect<K extends IrcEventName>(
  conn: IrcConnection,
  event: K,
  test: (ev: IrcEvents[K]) => boolean,
  timeoutMs = 10_000,
): Promise<IrcEvents[K] | undefined> {
  const client = conn.client!;
  return new Promise((resolve) => {
    const fn = (ev: IrcEvents[K]) => {
      if (!test(ev)) return;
      clearTimeout(timer);
      client.off(event, fn);
      resolve(ev);
    };
    const timer = setTimeout(() => {
      client.off(event, fn);
      resolve(undefined);
    }, timeoutMs);
    client.on(event, fn);
  });
}

/** A topic's setter as `/topic` answers it. */
const setterFields = (s: TopicSetter) => ({
  ...(s.by ? { topic_by: s.by } : {}),
  ...(s.at ? { topic_at: s.at } : {}),
});

/** The most channels one /list answers with (the most populated of those that matched). */
const LIST_SHOWN = 1000;

/**
 * `/list` arguments as Convos's client sends them: `/text/` keeps channels whose name contains
 * the text (a substring, not a regular expression: a pattern from the user must not be able to
 * make the server spin), `refresh` asks again (every /list asks the server anew here), and
 * anything else is a mask for the server's LIST.
 */
function listArgs(args: string): { filter: string; mask: string[] } {
  let filter = "";
  const mask: string[] = [];
  for (const word of args.trim().split(/\s+/).filter(Boolean)) {
    const m = /^\/(.*)\/$/.exec(word);
    if (m) filter = m[1].toLowerCase();
    else if (word.toLowerCase() !== "refresh") mask.push(word);
  }
  return { filter, mask };
}

/** Most people one /op, /ban... names: each is a mode change the server relays to everyone. */
const MAX_TARGETS = 50;

/** How many mode changes with a parameter one MODE line may carry: ISUPPORT MODES, else 3. */
function modesPerLine(conn: IrcConnection): number {
  const n = conn.upstream.modes;
  return n !== undefined && n > 0 ? Math.min(n, 20) : 3;
}

/**
 * Sets (`+`) or unsets (`-`) the channel mode `letter` for each of `targets`, as many per MODE
 * line as the server takes (`/op a b c` is one `MODE #c +ooo a b c`).
 */
async function modeEach(
  ctx: CommandContext,
  channel: string,
  change: "+" | "-",
  letter: string,
  targets: string[],
): Promise<CommandResult> {
  const conn = live(ctx);
  const per = modesPerLine(conn);
  for (let i = 0; i < targets.length; i += per) {
    const chunk = targets.slice(i, i + per);
    await conn.send(
      line(() => ircLine("MODE", channel, change + letter.repeat(chunk.length), ...chunk)),
    );
  }
  return { conversation_id: conn.conversationId(channel) };
}

/** The channel and the people a mode command names; its usage when it names nobody. */
function modeTargets(ctx: CommandContext, name: ServerCommandName, args: string) {
  live(ctx); // "not connected" before any usage error, as the other commands do
  const channel = channelHere(ctx, `/${name}`);
  const targets = words(args);
  if (!targets.length) usage(name);
  if (targets.length > MAX_TARGETS) fail(`At most ${MAX_TARGETS} at once.`);
  return { channel, targets };
}

/** `/op`, `/voice`...: one channel mode with a nick as its parameter. */
const nickMode =
  (name: ServerCommandName, change: "+" | "-", letter: string): Command => (ctx, args) => {
    const { channel, targets } = modeTargets(ctx, name, args);
    return modeEach(ctx, channel, change, letter, targets);
  };

/** What the server says of a nick: its ident and host, when it answers in time. */
async function whoIs(conn: IrcConnection, nick: string): Promise<Who> {
  // A connection that is down refuses the WHOIS, and then the MODE line, which tells the user.
  // why: no answer means a nick-only mask, the documented fallback.
  const reply = await conn.whois(nick).catch(() => undefined);
  const user = typeof reply?.ident === "string" ? reply.ident : undefined;
  const host = typeof reply?.hostname === "string" ? reply.hostname : undefined;
  return { nick, user, host };
}

/**
 * The ban mask for what the user typed: a mask as typed, else the person as the server tells
 * who they are, `*!*ident@host` (whatever nick they take next, with or without the `~` of an
 * unchecked ident; the ident keeps others on a shared host, a gateway or a bouncer, out of it),
 * else `nick!*@*`.
 */
async function banMask(conn: IrcConnection, typed: string): Promise<string> {
  if (!isPlainNick(typed)) return normalizeMask(typed) ?? fail(`Not a mask: ${typed}`);
  const { user, host } = await whoIs(conn, typed);
  const ident = user?.replace(/^~/, "");
  const plain = (part: string | undefined) => !!part && !/[\s*?!@,]/.test(part);
  return plain(ident) && plain(host) ? `*!*${ident}@${host}` : `${typed}!*@*`;
}

/**
 * The bans to lift for what the user typed: a mask as typed; for a nick, every ban on the
 * channel's list that matches the person (their nick, ident and host), else `nick!*@*`.
 */
async function unbanMasks(
  conn: IrcConnection,
  channel: string,
  typed: string[],
): Promise<string[]> {
  const out = typed.filter((t) => !isPlainNick(t));
  const nicks = typed.filter(isPlainNick);
  if (!nicks.length) return out;
  const listed = collect(conn, "banlist", (ev) => conn.same(String(ev.channel ?? ""), channel));
  await conn.send(line(() => ircLine("MODE", channel, "+b")));
  const bans = ((await listed)?.bans ?? []).map((b) => String(b.banned ?? "")).filter(Boolean);
  for (const nick of nicks) {
    const who = await whoIs(conn, nick);
    const matching = bans.slice(0, 1000).filter((b) => {
      const mask = normalizeMask(b);
      return mask !== undefined && maskMatches(mask, who);
    });
    out.push(...(matching.length ? matching : [`${nick}!*@*`]));
  }
  return [...new Set(out)];
}

/** What /shrug ends the line with. */
const SHRUG = "¯\\_(ツ)_/¯";

/**
 * `/ns <command>` and the other services' shortcuts: the server's own command for the service
 * (NICKSERV...), as Convos's client sends it, rather than a PRIVMSG: a password said to NickServ
 * is then kept in no conversation, and reaches no one but services on a network that has them
 * (elsewhere the server refuses an unknown command).
 */
function service(name: ServerCommandName, command: string): Command {
  return (ctx, args) => {
    if (!args.trim()) usage(name);
    return HANDLERS.quote(ctx, `${command} ${args.trim()}`);
  };
}

/**
 * The handler of every command the server runs, keyed by protocol/command_table.ts.
 *
 * @internal test seam
 */
export const HANDLERS: Readonly<Record<ServerCommandName, Command>> = {
  say: (ctx, args) => say(ctx, here(ctx), args, "privmsg"),
  me: (ctx, args) => say(ctx, here(ctx), args, "action"),
  shrug: (ctx, args) =>
    say(ctx, here(ctx), [args.trim(), SHRUG].filter(Boolean).join(" "), "privmsg"),
  msg: async (ctx, args) => {
    const [target, text] = firstWord(args);
    if (!target) usage("msg");
    const conn = live(ctx);
    const id = conn.conversationId(target);
    if (conn.isChannel(target) || await ctx.deps.store.conversations.get(ctx.record.id, id)) {
      return say(ctx, target, text, "privmsg");
    }
    // A service with no conversation open: the line and its answer go to the server's
    // conversation (record.ts), where the client takes the user, as it takes them to a nick's.
    if (isService(conn, target)) {
      await say(ctx, target, text, "privmsg");
      return { conversation_id: "" };
    }
    // A nick with no conversation yet: kept (and the conversation made) only once the server has
    // not refused it, so a mistyped nick leaves no conversation behind. The refusal itself comes
    // as an IRC error, shown where the user is.
    let lines: string[] = [];
    const refused = await answerBeforePong(
      conn,
      "irc error",
      (ev) => ev.error === "no_such_nick" && conn.same(String(ev.nick ?? ""), target),
      async () => void (lines = await sendSaid(ctx, conn, target, text, "privmsg")),
    );
    if (refused) return { conversation_id: ctx.conversationId, no_such_nick: target };
    await keepSaid(ctx, conn, target, "privmsg", lines);
    return { conversation_id: id };
  },
  notice: (ctx, args) => {
    const [target, text] = firstWord(args);
    if (!target) usage("notice");
    return say(ctx, target, text, "notice");
  },
  query: async (ctx, args) => {
    const [nick] = firstWord(args);
    if (!nick || !NICK.test(nick)) usage("query");
    const conn = ctx.conn;
    if (!conn) fail(`${ctx.record.connectionId} is not connected.`);
    const conv = await conversationFor(ctx.deps, conn, nick);
    if (!conv) fail("This connection has as many conversations as the server allows.");
    return { conversation_id: conv.conversationId };
  },
  join: async (ctx, args) => {
    const [typed, key] = firstWord(args);
    const conn = live(ctx);
    // A key is one word: "/join #a key with spaces" is a mistake, not four parameters.
    if (!typed || /\s/.test(key)) usage("join");
    // Several at once (`/join #a,b`): each a channel; the answer names the first, where the
    // client goes.
    const channels = typed.split(",").filter(Boolean).map((c) => asChannel(conn, c));
    if (!channels.length) usage("join");
    await conn.send(line(() => ircLine("JOIN", channels.join(","), ...(key ? [key] : []))));
    return { conversation_id: conn.conversationId(channels[0]) };
  },
  part: async (ctx, args) => {
    const [first, rest] = firstWord(args);
    const conn = ctx.conn;
    const named = first && conn?.isChannel(first) ? first : "";
    const name = named || here(ctx);
    const reason = named ? rest : args.trim();
    const id = named ? (conn?.conversationId(named) ?? named.toLowerCase()) : ctx.conversationId;
    const conv = await ctx.deps.store.conversations.get(ctx.record.id, id);
    if (conn?.isChannel(name) ?? name.startsWith("#")) {
      if (conv) await ctx.deps.store.conversations.setJoined(conv.id, false);
      if (conn?.state === "connected") {
        await conn.send(line(() => ircLine("PART", name, ...(reason ? [reason] : []))));
      }
    } else if (conv) {
      // Leaving a private conversation closes it.
      await removeConversation(ctx, conv.id, id);
    }
    return { conversation_id: id };
  },
  cycle: async (ctx, args) => {
    const conn = live(ctx);
    const [first, rest] = firstWord(args);
    const named = first && conn.isChannel(first) ? first : "";
    const channel = named || channelHere(ctx, "/cycle");
    const reason = named ? rest : args.trim();
    const id = conn.conversationId(channel);
    // The key it was joined with: a channel with +k would refuse the join without it.
    const key = (await ctx.deps.store.conversations.get(ctx.record.id, id))?.key ?? "";
    await send(ctx, "PART", channel, ...(reason ? [reason] : []));
    await send(ctx, "JOIN", channel, ...(key ? [key] : []));
    return { conversation_id: id };
  },
  // Closing leaves the channel (while in it) and removes the conversation, as Convos's /close
  // does: a channel left with /part stays listed, read-only, until it is closed.
  close: async (ctx, args) => {
    const [first] = firstWord(args);
    const conn = ctx.conn;
    const name = first || here(ctx);
    const id = first ? (conn?.conversationId(first) ?? first.toLowerCase()) : ctx.conversationId;
    const conv = await ctx.deps.store.conversations.get(ctx.record.id, id);
    if (!conv) fail(`No conversation ${name}.`);
    const channel = isChannel(ctx, name);
    if (channel && conv.joined && conn?.state === "connected") {
      await conn.send(line(() => ircLine("PART", conv.name || name)));
    }
    await removeConversation(ctx, conv.id, id);
    return { conversation_id: id };
  },
  nick: async (ctx, args) => {
    const [nick] = firstWord(args);
    if (!nick || !NICK.test(nick)) usage("nick");
    // Connected, the server decides: kept once it gives the nick. Else it is the next connect's.
    if (ctx.conn?.state === "connected") await ctx.conn.askNick(nick);
    else await ctx.control.setNick(nick);
    return {};
  },
  topic: async (ctx, args) => {
    const conn = live(ctx);
    const channel = here(ctx);
    const topic = args.trim();
    if (topic) {
      topicChanging(conn, conn.conversationId(channel));
      await conn.send(line(() => ircLine("TOPIC", channel, topic)));
      return { topic };
    }
    // A joined channel's topic and setter are what the server told on join and since (it tells
    // members every change): answered from them, without asking again.
    const id = conn.conversationId(channel);
    const known = topicSetter(conn, id);
    if (known && !isTopicChanging(conn, id) && (await conn.members?.(channel)) !== undefined) {
      const conv = await ctx.deps.store.conversations.get(ctx.record.id, id);
      const now = conv?.topic ?? "";
      return { conversation_id: id, topic: now, ...(now ? setterFields(known) : {}) };
    }
    // Else asked: the server's answer (332, or 331 for none), else the topic Parley has kept; and
    // who set it when (333, which follows 332, so the wait ends there or at the PONG).
    let told: IrcEvents["topic"] | undefined;
    const onTopic = (ev: IrcEvents["topic"]) => {
      if (!ev.nick && conn.same(String(ev.channel ?? ""), channel)) told = ev;
    };
    conn.client!.on("topic", onTopic);
    const setBy = await answerBeforePong(
      conn,
      "topicsetby",
      (ev) => conn.same(String(ev.channel ?? ""), channel),
      () => conn.send(line(() => ircLine("TOPIC", channel))),
    ).finally(() => conn.client?.off("topic", onTopic));
    const now = told ? String(told.topic ?? "") : ctx.conversation?.topic ?? "";
    if (setBy?.nick) topicSetBy(conn, id, setBy.nick, setBy.when);
    const setter = topicSetter(conn, id);
    return { conversation_id: id, topic: now, ...(now && setter ? setterFields(setter) : {}) };
  },
  whois: async (ctx, args) => {
    const [nick] = firstWord(args);
    if (!nick) usage("whois");
    const reply = await live(ctx).whois(nick);
    if (!reply) return { whois: { nick, error: "timeout" } };
    const { tags: _tags, ...whois } = reply;
    return { whois };
  },
  kick: (ctx, args) => {
    live(ctx); // "not connected" before any usage error, as the other commands do
    const [nick, reason] = firstWord(args);
    if (!nick) usage("kick");
    const channel = here(ctx);
    return send(ctx, "KICK", channel, nick, ...(reason ? [reason] : []));
  },
  mode: async (ctx, args) => {
    const conn = live(ctx);
    const a = args.trim();
    if (!a) {
      // Asking a channel's modes: the answer carries them (RPL_CHANNELMODEIS), as Convos's does.
      const channel = channelHere(ctx, "/mode");
      // A joined channel's are known (asked after the join, every change followed): the web
      // client asks on every open, and each asked of the server would take the query budget a
      // /whois needs. Asked while the user's own lines (a change among them) still wait to go out.
      const known = conn.upstream.channel(channel)?.modes;
      if (known && conn.queued === 0) {
        return { conversation_id: conn.conversationId(channel), modes: known };
      }
      const reply = collect(
        conn,
        "channel info",
        (ev) => conn.same(String(ev.channel), channel) && typeof ev.raw_modes === "string",
      );
      await conn.send(line(() => ircLine("MODE", channel)), { query: true });
      const ev = await reply;
      const modes = ev ? [ev.raw_modes, ...(ev.raw_params ?? [])].join(" ") : "";
      return { conversation_id: conn.conversationId(channel), modes };
    }
    if (/^[+-]/.test(a)) {
      const target = ctx.conversationId ? here(ctx) : conn.nick;
      return send(ctx, "MODE", target, ...words(a));
    }
    return send(ctx, "MODE", ...words(a));
  },
  op: nickMode("op", "+", "o"),
  deop: nickMode("deop", "-", "o"),
  voice: nickMode("voice", "+", "v"),
  devoice: nickMode("devoice", "-", "v"),
  ban: async (ctx, args) => {
    const { channel, targets } = modeTargets(ctx, "ban", args);
    const conn = live(ctx);
    const masks = await Promise.all(targets.map((t) => banMask(conn, t)));
    return modeEach(ctx, channel, "+", "b", masks);
  },
  unban: async (ctx, args) => {
    const { channel, targets } = modeTargets(ctx, "unban", args);
    return modeEach(ctx, channel, "-", "b", await unbanMasks(live(ctx), channel, targets));
  },
  kickban: async (ctx, args) => {
    const conn = live(ctx); // "not connected" before any usage error, as the other commands do
    const [nick, reason] = firstWord(args);
    if (!NICK.test(nick)) usage("kickban");
    const channel = channelHere(ctx, "/kickban");
    // Banned first: kicked, they could rejoin before the ban is set.
    await modeEach(ctx, channel, "+", "b", [await banMask(conn, nick)]);
    await send(ctx, "KICK", channel, nick, ...(reason ? [reason] : []));
    return { conversation_id: conn.conversationId(channel) };
  },
  invite: async (ctx, args) => {
    const conn = live(ctx); // "not connected" before any usage error, as the other commands do
    const [nick, rest] = firstWord(args);
    if (!nick) usage("invite");
    const channel = firstWord(rest)[0] || channelHere(ctx, "/invite");
    // The server confirms with 341 (RPL_INVITING); a refusal comes as an IRC error.
    const confirmed = await answerBeforePong(
      conn,
      "invited",
      (ev) => conn.same(String(ev.nick ?? ""), nick),
      () => conn.send(line(() => ircLine("INVITE", nick, channel))),
    );
    return confirmed ? { invited: { nick: String(confirmed.nick), channel } } : {};
  },
  ignore: async (ctx, args) => {
    const { store } = ctx.deps;
    const uid = ctx.record.userId;
    const [typed] = firstWord(args);
    if (!typed) return { ignores: await store.ignores.list(uid) };
    const own = ctx.conn?.nick ? [ctx.conn.nick] : [];
    const { mask } = await ignore(store, uid, typed, "/body/message", own);
    return { ignored: mask, ignores: await store.ignores.list(uid) };
  },
  unignore: async (ctx, args) => {
    const [typed] = firstWord(args);
    if (!typed) usage("unignore");
    const { store } = ctx.deps;
    const mask = await unignore(store, ctx.record.userId, typed, "/body/message");
    return { unignored: mask, ignores: await store.ignores.list(ctx.record.userId) };
  },
  away: (ctx, args) => send(ctx, "AWAY", ...(args.trim() ? [args.trim()] : [])),
  back: (ctx) => send(ctx, "AWAY"),
  list: async (ctx, args) => {
    const conn = live(ctx);
    const { filter, mask } = listArgs(args);
    // The end event carries nothing: whether it came is this flag, not collect's answer.
    let ended = false;
    const done = collect(conn, "channel list end", () => (ended = true));
    // A network may list 50,000 channels: the filter applies to all of them as they come, and
    // only the most populated LIST_SHOWN matches are kept (trimmed whenever twice that many
    // wait), so memory and the answer stay bounded while the search covers the whole list.
    let channels: ListedChannelPayload[] = [];
    let total = 0;
    let matched = 0;
    const trim = () => {
      channels.sort((a, b) => (Number(b.num_users) || 0) - (Number(a.num_users) || 0));
      channels.length = Math.min(channels.length, LIST_SHOWN);
    };
    const fn = (list: ListedChannelPayload[]) => {
      if (!Array.isArray(list)) return;
      total += list.length;
      const hits = list.filter((c) => String(c?.channel ?? "").toLowerCase().includes(filter));
      matched += hits.length;
      channels = channels.concat(hits);
      if (channels.length >= 2 * LIST_SHOWN) trim();
    };
    conn.client!.on("channel list", fn);
    await conn.send(line(() => ircLine("LIST", ...mask)));
    await done;
    conn.client?.off("channel list", fn);
    trim();
    const shown = channels;
    return {
      // Convos's shape (its client reads these)...
      conversations: shown.map((c) => ({
        name: String(c.channel),
        n_users: Number(c.num_users) || 0,
        topic: c.topic ?? "",
      })),
      n_conversations: total,
      done: ended,
      // How many names matched the filter: more than `channels` holds when it was cut.
      n_matched: matched,
      // ...and Parley's own, which its web client shows as a table.
      channels: shown.map((c) => ({
        name: String(c.channel),
        users: c.num_users,
        topic: c.topic ?? "",
      })),
    };
  },
  names: async (ctx, args) => {
    const conn = live(ctx);
    const channel = firstWord(args)[0] || channelHere(ctx, "/names");
    // A joined channel's members are known (clients ask on every open): no wait on the server.
    const users = await conn.members?.(channel) ?? await askNames(conn, channel);
    return {
      // Convos's shape: one mode string per participant ("o", "v", or "").
      participants: users.map((u) => ({ nick: u.nick, mode: (u.modes ?? []).join("") })),
      names: users.map((u) => ({
        nick: u.nick,
        modes: u.modes,
        ...("away" in u && u.away ? { away: true } : {}),
      })),
    };
  },
  ison: async (ctx, args) => {
    const [nick] = firstWord(args);
    if (!nick || !NICK.test(nick)) usage("ison");
    const conn = live(ctx);
    // The server answers in order: a 303 naming the nick before the PONG says it is on IRC (an
    // IRC client's ISON answered meanwhile names it only when it is).
    const told = await answerBeforePong(
      conn,
      "ison",
      (ev) => ev.nicks.some((n) => conn.same(n, nick)),
      () => conn.send(line(() => ircLine("ISON", nick)), { query: true }),
    );
    return { nick, online: !!told };
  },
  ctcp: async (ctx, args) => {
    const [nick, rest] = firstWord(args);
    const [typed, text] = firstWord(rest);
    if (!NICK.test(nick) || !CTCP_TYPE.test(typed)) usage("ctcp");
    const type = typed.toUpperCase();
    if (type === "ACTION") fail("Use /me for an action.");
    const conn = live(ctx);
    // A PING without text carries the time it was sent: its echo measures the round trip.
    const sent = Date.now();
    // No control character (line break, CTCP delimiter): the text stays one request's argument.
    const arg = type === "PING" && !text
      ? String(sent)
      : [...text].map((c) => c < " " ? " " : c).join("");
    // One request is one line: its text is not split, as a message's is.
    if (new TextEncoder().encode(arg).length > CTCP_TEXT) {
      fail(`A CTCP request's text is at most ${CTCP_TEXT} bytes.`);
    }
    const reply = await conn.ctcp(nick, type, arg);
    if (reply === undefined) return { ctcp: { nick, type, error: "timeout" } };
    const seconds = type === "PING" && reply === String(sent)
      ? Math.max(0, Date.now() - sent) / 1000
      : undefined;
    return { ctcp: { nick, type, reply, ...(seconds === undefined ? {} : { seconds }) } };
  },
  oper: (ctx, args) => {
    const [name, password] = words(args);
    if (!name || !password) usage("oper");
    return send(ctx, "OPER", name, password);
  },
  ns: service("ns", "NICKSERV"),
  cs: service("cs", "CHANSERV"),
  ms: service("ms", "MEMOSERV"),
  hs: service("hs", "HOSTSERV"),
  bs: service("bs", "BOTSERV"),
  os: service("os", "OPERSERV"),
  quote: async (ctx, args) => {
    if (!args.trim()) usage("quote");
    await live(ctx).send(line(() => quotedLine(args)), {
      origin: ctx.origin,
      background: ctx.background,
      asked: !ctx.relayed,
      written: ctx.written,
    });
    return {};
  },
  connect: async (ctx) => (await ctx.control.connect(), {}),
  disconnect: async (ctx) => (await ctx.control.disconnect(), {}),
  reconnect: async (ctx) => (await ctx.control.reconnect(), {}),
  clear: async (ctx, args) => {
    if (args.trim().toLowerCase() !== "history") usage("clear");
    if (!ctx.conversation) fail("No such conversation.");
    await ctx.deps.store.messages.clear(ctx.conversation.id);
    return { cleared: true };
  },
};

/** A channel's members as the server lists them (one the connection has not joined). */
async function askNames(
  conn: IrcConnection,
  channel: string,
): Promise<{ nick: string; modes: string[] }[]> {
  const reply = collect(conn, "userlist", (ev) => conn.same(String(ev.channel), channel));
  await conn.send(line(() => ircLine("NAMES", channel)), { query: true });
  const ev = await reply;
  return (ev?.users ?? []).map((u) => ({ nick: String(u.nick ?? ""), modes: u.modes ?? [] }));
}

/** Runs a message: a slash command, or plain text said in the conversation. */
export async function runCommand(ctx: CommandContext, message: string): Promise<CommandResult> {
  // NUL cuts a line short on most servers (ngircd wedges on it): it is never sent.
  if (message.includes("\0")) fail("The message must not contain NUL characters.");
  // Text may span lines (each becomes its own message); a command is one IRC line.
  if (/^\/(?!\/)/.test(message) && /[\r\n]/.test(message.trimEnd())) {
    fail("A command must be a single line.");
  }
  message = message.startsWith("/") ? message.trimEnd() : message;
  // Plain text is /say; "//text" sends "/text" as a message.
  let [name, args] = ["say", message.startsWith("//") ? message.slice(1) : message];
  if (message.startsWith("/") && !message.startsWith("//")) {
    [name, args] = firstWord(message.slice(1));
  }
  const spec = findCommand(name);
  // The client's own commands (/help, /search) mean nothing here.
  if (spec?.runs !== "server") {
    fail(`Unknown command: /${name}. Try /join, /msg, /me, /nick or /quote.`);
  }
  await checkAllowed(ctx, spec);
  return HANDLERS[spec.name as ServerCommandName](ctx, args);
}
