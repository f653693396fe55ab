/**
 * The events of a connection's IRC client (client.ts), typed: registration's, the socket's, and
 * the answers to Parley's own queries. Any field taken from a parameter may be missing when a
 * server sends fewer, so those are optional and read with care.
 */

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
 * The events a connection's client tells, by name: registration's (registration.ts) and the
 * socket's, and the answers to Parley's own queries, told by irc/chat/inbound/answers.ts as each
 * line is read.
 */
export interface IrcEvents {
  // Told by registration (registration.ts) and the socket.
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
  /** A CTCP answer (a NOTICE `\x01TYPE text\x01`): who answered, the request's type and the text. */
  "ctcp reply": Base & { nick: string; type: string; text: string };
  /** RPL_ISON (303): which of the nicks an ISON named are on IRC. */
  ison: Base & { nicks: string[] };
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

/** An event a client tells. */
export type IrcEventName = keyof IrcEvents;

/** The WHOIS answer: whatever the server told, field by field. */
export type WhoisReply = { nick?: string; [field: string]: unknown };
