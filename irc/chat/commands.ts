/**
 * What the user types: a plain message, or a slash command (`/join #x`, `/msg nick hi`...).
 * The commands are listed once, in irc/chat/command_table.ts (usage, description, who and where);
 * here is one small handler per entry, and runCommand checks who and where before it runs.
 */
import type { SendResult } from "../../lib/events.ts";
import { denied, invalid } from "../../lib/errors.ts";
import type { ConnectionRecord } from "../../store/connections.ts";
import type { ConversationRecord } from "../../store/conversations.ts";
import type { IrcConnection } from "../engine/connection.ts";
import type { IrcEventName, IrcEvents, ListedChannelPayload } from "../engine/framework.ts";
import { conversationFor, type RecordDeps, recordMessage } from "./record.ts";
import { type CommandSpec, findCommand, mayUse, type ServerCommandName } from "./command_table.ts";
import { type IrcLine, ircLine, LineError, quotedLine } from "../engine/line.ts";

/** What a command may use. */
export interface CommandContext {
  deps: RecordDeps;
  record: ConnectionRecord;
  /** The live connection, when there is one. */
  conn: IrcConnection | undefined;
  /** The conversation the command was typed in ("" for the server's). */
  conversationId: string;
  /** That conversation, when it exists. */
  conversation: ConversationRecord | undefined;
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

/** What a command answers (the `sent` event carries it): declared once, with the socket frames, in lib/events.ts. */
export type CommandResult = SendResult;

type Command = (ctx: CommandContext, args: string) => Promise<CommandResult>;

const NICK = /^[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}-]{0,29}$/;

// The message is the input at fault; the HTTP edge maps the pointer for REST and the socket.
function fail(message: string): never {
  throw invalid(message, "/body/message");
}

function live(ctx: CommandContext): IrcConnection {
  const conn = ctx.conn;
  if (!conn || conn.state !== "connected") fail(`${ctx.record.connectionId} is not connected.`);
  return conn;
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

/** Refuses a command the user may not run, or one typed where it does not work. */
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
  if (!text.trim()) fail("The message is empty.");
  // Too long or too many lines for the network: its first line and a link to the text instead.
  text = (await ctx.paste?.(text)) ?? text;
  const lines = await conn.say(target, text, type).catch((err) => {
    // A target no line can carry (`/msg :x hi`) is the user's input at fault.
    if (err instanceof LineError) fail(err.message);
    throw err;
  });
  if (!conn.echoes) {
    for (const line of lines) {
      await recordMessage(ctx.deps, conn, {
        name: target,
        from: conn.nick,
        type: type === "privmsg" ? "private" : type,
        text: line,
        own: true,
      });
    }
  }
  return { conversation_id: conn.conversationId(target) };
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

/** The handler of every command the server runs, keyed by irc/chat/command_table.ts. */
export const HANDLERS: Readonly<Record<ServerCommandName, Command>> = {
  say: (ctx, args) => say(ctx, here(ctx), args, "privmsg"),
  me: (ctx, args) => say(ctx, here(ctx), args, "action"),
  msg: (ctx, args) => {
    const [target, text] = firstWord(args);
    if (!target) usage("msg");
    return say(ctx, target, text, "privmsg");
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
    const [channel, key] = firstWord(args);
    const conn = live(ctx);
    // A key is one word: "/join #a key with spaces" is a mistake, not four parameters.
    if (!channel || !conn.isChannel(channel) || /\s/.test(key)) usage("join");
    await conn.send(line(() => ircLine("JOIN", channel, ...(key ? [key] : []))));
    return { conversation_id: conn.conversationId(channel) };
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
      await ctx.deps.store.conversations.remove(conv.id);
      ctx.deps.bus.publish(ctx.record.userId, {
        event: "state",
        type: "part",
        connection_id: ctx.record.connectionId,
        conversation_id: id,
        nick: conn?.nick ?? "",
      });
    }
    return { conversation_id: id };
  },
  nick: async (ctx, args) => {
    const [nick] = firstWord(args);
    if (!nick || !NICK.test(nick)) usage("nick");
    await ctx.control.setNick(nick);
    if (ctx.conn?.state === "connected") await ctx.conn.send(ircLine("NICK", nick));
    return {};
  },
  topic: async (ctx, args) => {
    const conn = live(ctx);
    const channel = here(ctx);
    const topic = args.trim();
    await conn.send(line(() => ircLine("TOPIC", channel, ...(topic ? [topic] : []))));
    return { topic: args.trim() || ctx.conversation?.topic || "" };
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
  invite: (ctx, args) => {
    live(ctx); // "not connected" before any usage error, as the other commands do
    const [nick, rest] = firstWord(args);
    if (!nick) usage("invite");
    const channel = firstWord(rest)[0] || channelHere(ctx, "/invite");
    return send(ctx, "INVITE", nick, channel);
  },
  away: (ctx, args) => send(ctx, "AWAY", ...(args.trim() ? [args.trim()] : [])),
  list: async (ctx, args) => {
    const conn = live(ctx);
    const { filter, mask } = listArgs(args);
    const done = collect(conn, "channel list end", () => true);
    const channels: ListedChannelPayload[] = [];
    let total = 0;
    const fn = (list: ListedChannelPayload[]) => {
      if (!Array.isArray(list)) return;
      total += list.length;
      channels.push(...list.slice(0, 1000 - channels.length));
    };
    conn.client!.on("channel list", fn);
    await conn.send(line(() => ircLine("LIST", ...mask)));
    const ended = (await done) !== undefined;
    conn.client?.off("channel list", fn);
    const shown = channels.filter((c) => String(c.channel).toLowerCase().includes(filter));
    return {
      // Convos's shape (its client reads these)...
      conversations: shown.map((c) => ({
        name: String(c.channel),
        n_users: Number(c.num_users) || 0,
        topic: c.topic ?? "",
      })),
      n_conversations: total,
      done: ended,
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
      names: users.map((u) => ({ nick: u.nick, modes: u.modes })),
    };
  },
  quote: async (ctx, args) => {
    if (!args.trim()) usage("quote");
    await live(ctx).send(line(() => quotedLine(args)));
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
