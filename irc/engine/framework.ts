/**
 * The part of irc-framework's Client that Parley uses, typed (the package ships no types). The
 * payloads are what irc-framework builds from a server's line: any field taken from a parameter
 * may be missing when a server sends fewer, so those are optional and read with care.
 */
// @ts-types="./framework.d.ts"
import * as IrcFramework from "irc-framework";
import type { IrcMessage as Message } from "../protocol/message.ts";

/** Fields every payload may carry. */
interface Base {
  /** The IRCv3 `@time` tag in ms, when the line had one (believed only per chat/server_time.ts). */
  time?: number;
  tags?: Record<string, string>;
}

/** Who sent a line (its prefix). */
interface From extends Base {
  nick?: string;
  ident?: string;
  hostname?: string;
}

/** A PRIVMSG, NOTICE or CTCP ACTION. */
export interface ChatPayload extends From {
  target?: string;
  message?: string;
  /** No nick in the prefix: the server itself. */
  from_server?: boolean;
}

/** A member as NAMES lists it. */
export interface NamesEntry {
  nick?: string;
  modes?: string[];
}

/** A channel as LIST lists it. */
export interface ListedChannelPayload {
  channel?: string;
  num_users?: number;
  topic?: string;
}

/** What irc-framework emits, by event name: the events Parley listens to. */
export interface IrcEvents {
  privmsg: ChatPayload;
  action: ChatPayload;
  notice: ChatPayload;
  /** A line of tags alone (IRCv3 message-tags): typing, reactions. */
  tagmsg: From & { target?: string; from_server?: boolean };
  "ctcp request": ChatPayload & { type?: string | null };
  /** Every line, read or written, before parsing. */
  raw: { line?: string; from_server?: boolean };
  registered: Base & { nick: string };
  "server options": Base & { options?: Record<string, unknown> };
  loggedin: From & { account?: string };
  loggedout: From;
  motd: Base & { motd?: string; error?: string };
  "irc error": Base & { error?: string; channel?: string; nick?: string; reason?: string };
  "nick in use": Base & { nick?: string; reason?: string };
  "nick invalid": Base & { nick?: string; reason?: string };
  "sasl failed": Base & { reason?: string };
  userlist: Base & { channel?: string; users?: NamesEntry[] };
  join: From & { channel?: string };
  part: From & { channel?: string; message?: string };
  kick: From & { channel?: string; kicked?: string; message?: string };
  quit: From & { message?: string };
  nick: From & { new_nick?: string };
  topic: From & { channel?: string; topic?: string };
  /** RPL_TOPICWHOTIME (333): who set the topic (a nick or a mask) and when, in Unix seconds. */
  topicsetby: Base & { channel?: string; nick?: string; when?: string | number };
  mode: From & {
    target?: string;
    raw_modes?: string;
    raw_params?: string[];
    /** Each change with its parameter: `{mode: "+o", param: "bob"}`. */
    modes?: { mode?: string; param?: string }[];
  };
  "channel info": Base & { channel?: string; raw_modes?: string; raw_params?: string[] };
  /** The answer to a PING the client sent. */
  pong: Base & { message?: string };
  /** The server confirms an INVITE (341). */
  invited: Base & { nick?: string; channel?: string };
  /** A channel's ban list (367s up to 368). */
  banlist: Base & { channel?: string; bans?: { banned?: string }[] };
  /** Someone is away (an AWAY line under `away-notify`) or the user is (306). */
  away: From & { self?: boolean; message?: string };
  /** Someone is back (an AWAY line without a reason), or the user is (305). */
  back: From & { self?: boolean };
  /** A WHO's (or WHOX's) answer: who matched, each with whether they are away. */
  wholist: Base & { target?: string; users?: { nick?: string; away?: boolean }[] };
  "channel list": ListedChannelPayload[];
  "channel list end": undefined;
  "socket close": unknown;
}

/** An event name irc-framework emits that Parley listens to. */
export type IrcEventName = keyof IrcEvents;

/** The WHOIS answer: whatever the server told, field by field. */
export type WhoisReply = { nick?: string; [field: string]: unknown };

/** The irc-framework client, as far as Parley uses it. */
export interface IrcClient {
  connect(options: Record<string, unknown>): void;
  on<K extends IrcEventName>(event: K, fn: (ev: IrcEvents[K]) => void): void;
  off<K extends IrcEventName>(event: K, fn: (ev: IrcEvents[K]) => void): void;
  removeAllListeners(): void;
  raw(line: string): void;
  quit(message?: string): void;
  whois(nick: string, cb: (ev: WhoisReply) => void): void;
  user: { nick: string };
  network: {
    name: string;
    server: string;
    options: Record<string, unknown>;
    cap: { isEnabled(cap: string): boolean };
    supports(feature: string): unknown;
  };
  connection: { end(data?: string, hadError?: boolean): void; connected: boolean };
}

/**
 * irc-framework's table of command handlers: the same functions for every client (they are given
 * their client when called), yet each client builds its own table, ~9 KB a connection with its
 * closures. The first client's table is kept and given to every later one.
 */
let commandHandlers: unknown;

/**
 * A line read once by the transport, in the shape irc-framework's own parser gives its handlers:
 * tags as an object with lower-cased names, the source split into nick, ident and host. Its
 * command objects copy the parameters and tags, so the message stays as read for the outlet.
 */
export function frameworkMessage(m: Message): Record<string, unknown> {
  const tags: Record<string, string> = Object.create(null);
  for (const [k, v] of m.tags) tags[k.toLowerCase()] = v;
  const { prefix } = m;
  let nick = "";
  let ident = "";
  let hostname = "";
  const bang = prefix.indexOf("!");
  const at = prefix.indexOf("@", bang < 0 ? 0 : bang);
  if (bang >= 0) {
    nick = prefix.slice(0, bang);
    ident = at < 0 ? prefix.slice(bang + 1) : prefix.slice(bang + 1, at);
    hostname = at < 0 ? "" : prefix.slice(at + 1);
  } else if (at >= 0) {
    nick = prefix.slice(0, at);
    hostname = prefix.slice(at + 1);
  } else if (prefix.includes(".")) hostname = prefix; // a server
  else nick = prefix;
  return { tags, prefix, nick, ident, hostname, command: m.command, params: m.params };
}

/** Creates a new irc-framework client. */
export function newIrcClient(): IrcClient {
  // deno-lint-ignore no-explicit-any
  const mod = IrcFramework as any;
  const Client = mod.Client ?? mod.default?.Client;
  const client = new Client();
  // The bouncer listener sends a client's query with a label of its own, to tell its answer
  // (bouncer/pending_replies.ts); irc-framework asks for the rest of what clients are offered.
  client.requestCap?.(["labeled-response"]);
  // The transport hands over each line already read (irc/socket/transport.ts): irc-framework's
  // connection dispatches it without reading it again.
  const connection = client.connection;
  connection.addReadBuffer = (m: Message) => {
    connection.emit("message", frameworkMessage(m));
  };
  const commands = client.command_handler;
  if (commands && Array.isArray(commands.handlers)) {
    commandHandlers ??= commands.handlers;
    commands.handlers = commandHandlers;
  }
  return client as IrcClient;
}
