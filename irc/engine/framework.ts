/**
 * The part of irc-framework's Client that Parley uses, typed (the package ships no types), and
 * the lines it is still given: registration's (CAP, SASL, the greeting, nick collisions, ERROR). Every other line is handled by Parley's own handlers keyed by command
 * (irc/chat/inbound/), which tell the answers to Parley's own queries as the same typed events.
 * Any field taken from a parameter may be missing when a server sends fewer, so those are
 * optional and read with care.
 */
// @ts-types="./framework.d.ts"
import * as IrcFramework from "irc-framework";
import { type IrcMessage as Message, sourceOf } from "../protocol/message.ts";
import {
  ERR_ERRONEUSNICKNAME,
  ERR_NICKCOLLISION,
  ERR_NICKLOCKED,
  ERR_NICKNAMEINUSE,
  ERR_PASSWDMISMATCH,
  ERR_SASLABORTED,
  ERR_SASLALREADY,
  ERR_SASLFAIL,
  ERR_SASLTOOLONG,
  ERR_UNAVAILRESOURCE,
  ERR_YOUREBANNEDCREEP,
  RPL_CREATED,
  RPL_LOGGEDIN,
  RPL_LOGGEDOUT,
  RPL_MYINFO,
  RPL_SASLMECHS,
  RPL_SASLSUCCESS,
  RPL_WELCOME,
  RPL_YOURHOST,
} from "../protocol/numerics.ts";

/**
 * The commands irc-framework is given: what registration needs (CAP negotiation, SASL's
 * AUTHENTICATE and numerics 900-908, the greeting 001-004, nick collisions, the password and ban
 * refusals, ERROR). Nothing else reaches it, so it keeps no channel or user state of its own, nor
 * the server's ISUPPORT (1.6 KB a connection; the connection's upstream state has it).
 */
export const FRAMEWORK_COMMANDS: ReadonlySet<string> = new Set([
  "CAP",
  "AUTHENTICATE",
  "ERROR",
  RPL_WELCOME,
  RPL_YOURHOST,
  RPL_CREATED,
  RPL_MYINFO,
  ERR_ERRONEUSNICKNAME,
  ERR_NICKNAMEINUSE,
  ERR_NICKCOLLISION,
  ERR_UNAVAILRESOURCE,
  ERR_PASSWDMISMATCH,
  ERR_YOUREBANNEDCREEP,
  RPL_LOGGEDIN,
  RPL_LOGGEDOUT,
  ERR_NICKLOCKED,
  RPL_SASLSUCCESS,
  ERR_SASLFAIL,
  ERR_SASLTOOLONG,
  ERR_SASLABORTED,
  ERR_SASLALREADY,
  RPL_SASLMECHS,
]);

/** Fields every payload may carry. */
interface Base {
  /** The IRCv3 `@time` tag in ms, when the line had one (believed only per chat/server_time.ts). */
  time?: number;
  tags?: Record<string, string>;
}

/** A member as NAMES lists it. */
interface NamesEntry {
  nick?: string;
  modes?: string[];
}

/** A channel as LIST lists it. */
export interface ListedChannelPayload {
  channel?: string;
  num_users?: number;
  topic?: string;
}

/**
 * The events Parley listens to, by name: registration's, told by irc-framework, and the answers
 * to Parley's own queries, told by irc/chat/inbound/answers.ts as each line is read.
 */
export interface IrcEvents {
  // Told by irc-framework (registration).
  registered: Base & { nick: string };
  "irc error": Base & { error?: string; channel?: string; nick?: string; reason?: string };
  "nick in use": Base & { nick?: string; reason?: string };
  "nick invalid": Base & { nick?: string; reason?: string };
  "sasl failed": Base & { reason?: string };
  "socket close": unknown;
  // Told by answers.ts.
  /** A topic: told on join or asked (332, 331), or changed (TOPIC, with the nick). */
  topic: Base & { nick?: string; channel?: string; topic?: string };
  /** RPL_TOPICWHOTIME (333): who set the topic (a nick or a mask) and when, in Unix seconds. */
  topicsetby: Base & { channel?: string; nick?: string; when?: string | number };
  "channel info": Base & { channel?: string; raw_modes?: string; raw_params?: string[] };
  /** The answer to a PING the client sent. */
  pong: Base & { message?: string };
  /** The server confirms an INVITE (341). */
  invited: Base & { nick?: string; channel?: string };
  /** A channel's ban list (367s up to 368). */
  banlist: Base & { channel?: string; bans?: { banned?: string }[] };
  /** A NAMES reply (353s up to 366). */
  userlist: Base & { channel?: string; users?: NamesEntry[] };
  /** A WHO's answer: who matched, each with whether they are away. */
  wholist: Base & { target?: string; users?: { nick?: string; away?: boolean }[] };
  /** A WHOIS answer (311... up to 318). */
  whois: WhoisReply;
  "channel list": ListedChannelPayload[];
  "channel list end": undefined;
}

/** An event name irc-framework emits that Parley listens to. */
export type IrcEventName = keyof IrcEvents;

/** The WHOIS answer: whatever the server told, field by field. */
export type WhoisReply = { nick?: string; [field: string]: unknown };

/** The irc-framework client, as far as Parley uses it. */
export interface IrcClient {
  connect(options: Record<string, unknown>): void;
  on<K extends IrcEventName>(event: K, fn: (ev: IrcEvents[K]) => void): void;
  /** Tells an answer to whoever waits for it (irc/chat/inbound/answers.ts). */
  emit(event: IrcEventName, ev: unknown): boolean;
  off<K extends IrcEventName>(event: K, fn: (ev: IrcEvents[K]) => void): void;
  removeAllListeners(): void;
  raw(line: string): void;
  quit(message?: string): void;
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
function frameworkMessage(m: Message): Record<string, unknown> {
  const tags: Record<string, string> = Object.create(null);
  for (const [k, v] of m.tags) tags[k.toLowerCase()] = v;
  const { nick, user: ident, host: hostname } = sourceOf(m.prefix);
  return { tags, prefix: m.prefix, nick, ident, hostname, command: m.command, params: m.params };
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
