/**
 * The registration burst of an attaching client: 001-005 (the server's ISUPPORT plus Parley's own
 * tokens), the MOTD or 422, then each channel as if just joined: JOIN, topic (332/333), names
 * (353/366), with the read marker before 366 for clients that take read markers.
 */
import type { HistoryScope, HistoryService } from "./history.ts";
import type { Hub } from "./relay.ts";
import { type Caps, noImplicitNames } from "./caps.ts";
import { forClient } from "./filter.ts";
import { formatMessage, type IrcMessage } from "../irc/protocol/message.ts";
import {
  ERR_NOMOTD,
  RPL_CREATED,
  RPL_ENDOFMOTD,
  RPL_ENDOFNAMES,
  RPL_ISUPPORT,
  RPL_MOTD,
  RPL_MOTDSTART,
  RPL_MYINFO,
  RPL_NAMREPLY,
  RPL_TOPIC,
  RPL_TOPICWHOTIME,
  RPL_WELCOME,
  RPL_YOURHOST,
} from "../irc/protocol/numerics.ts";

/** Parley's name as a server, in the source of its own lines. */
export const SERVER_NAME = "parley";

/** ISUPPORT tokens Parley sets itself, whatever the server said. */
function ownTokens(hub: Hub, history: HistoryService): string[] {
  return [
    `CHATHISTORY=${history.limit}`,
    "MSGREFTYPES=timestamp,msgid",
    `BOUNCER_NETID=${hub.connectionId}`,
  ];
}

/**
 * Server tokens never passed on: the services Parley answers for itself, and upload URLs, which
 * clients call with their login (HTTP Basic with the listener's password or app token): a
 * network's upload host must never get them.
 */
const NEVER_PASSED = new Set([
  "FILEHOST",
  "DRAFT/FILEHOST",
  "SOJU.IM/FILEHOST",
  "VAPID",
  "BOUNCER_NETID",
]);

/** A token's name, as NEVER_PASSED lists it (a negation `-NAME` names it too). */
const tokenName = (t: string) => t.split("=")[0].replace(/^-/, "").toUpperCase();

/** Names per 353 line: fits 512 bytes with a long channel name and prefix. */
const NAMES_BYTES = 380;

/** Every line of the burst, in order. */
export async function burstLines(
  hub: Hub,
  caps: Caps,
  history: HistoryService,
  scope: HistoryScope,
  version: string,
  /** Tokens of the services beside IRC (services.ts). */
  extra: string[] = [],
): Promise<string[]> {
  const nick = hub.nick;
  const s = hub.state;
  const out: string[] = [];
  const num = (code: string, ...params: string[]) => out.push(numericLine(nick, code, ...params));
  num(RPL_WELCOME, `Welcome to Parley, ${nick}`);
  num(RPL_YOURHOST, `Your host is ${SERVER_NAME}, relaying ${s.server || "an IRC server"}`);
  num(RPL_CREATED, "This server is Parley, a bouncer with a web client");
  const [, , userModes, channelModes] = s.myinfo;
  num(
    RPL_MYINFO,
    SERVER_NAME,
    `parley-${version}`,
    userModes || "iow",
    channelModes || "biklmnopstv",
  );
  const own = ownTokens(hub, history).concat(extra);
  const ownNames = new Set(own.map(tokenName));
  const tokens = s.isupportTokens()
    .filter((t) => !ownNames.has(tokenName(t)) && !NEVER_PASSED.has(tokenName(t)))
    .concat(own);
  for (let i = 0; i < tokens.length; i += 12) {
    num(RPL_ISUPPORT, ...tokens.slice(i, i + 12), "are supported by this server");
  }
  if (s.motd.length) {
    num(RPL_MOTDSTART, `- ${SERVER_NAME} Message of the day - `);
    for (const line of s.motd) num(RPL_MOTD, line);
    num(RPL_ENDOFMOTD, "End of /MOTD command.");
  } else num(ERR_NOMOTD, "MOTD File is missing");
  for (const ch of s.channels.values()) {
    // A detached channel is out of the client's list (detached.ts).
    if (hub.detached.isDetached(ch.name)) continue;
    out.push(...await channelBurst(hub, caps, history, scope, ch.name));
  }
  return out;
}

/**
 * A channel's lines as if just joined: JOIN, topic (332/333), names (353/366, unless the client
 * took no-implicit-names), read marker (before the 366).
 */
export async function channelBurst(
  hub: Hub,
  caps: Caps,
  history: HistoryService,
  scope: HistoryScope,
  channel: string,
): Promise<string[]> {
  const nick = hub.nick;
  const s = hub.state;
  const ch = s.channel(channel);
  const out: string[] = [];
  if (!ch) return out;
  const num = (code: string, ...params: string[]) => out.push(numericLine(nick, code, ...params));
  const me = s.sourceOf(nick, SERVER_NAME);
  const prefix = /^\(([^)]*)\)(.*)$/.exec(s.isupportValue("PREFIX") ?? "(ov)@+");
  /** A member's prefix symbols (strongest first) from its mode letters. */
  const symbolsOf = (modes: string[]) => {
    const [letters, symbols] = [prefix?.[1] ?? "ov", prefix?.[2] ?? "@+"];
    return [...letters].flatMap((l, i) => modes.includes(l) ? [symbols[i] ?? ""] : []).join("");
  };
  const join: IrcMessage = {
    tags: new Map(),
    prefix: me,
    command: "JOIN",
    params: [ch.name, "*", "Parley user"],
  };
  const line = forClient(caps, join, { prefixes: s.prefixSymbols(), myNick: nick });
  if (line) out.push(line);
  if (ch.topic) {
    num(RPL_TOPIC, ch.name, ch.topic);
    if (ch.topicBy) num(RPL_TOPICWHOTIME, ch.name, ch.topicBy, ch.topicAt || "0");
  }
  const names = !noImplicitNames(caps);
  // The connection's own list (irc/chat/presence.ts, shared per network), once its NAMES ended.
  const members = names ? await hub.conn?.members(ch.name) ?? [{ nick, modes: [] }] : [];
  const words = members.map(({ nick: n, modes }) => {
    const mode = symbolsOf(modes);
    return caps.has("multi-prefix") ? mode + n : (mode[0] ?? "") + n;
  });
  let cur: string[] = [];
  for (const w of words) {
    if (cur.length && [...cur, w].join(" ").length > NAMES_BYTES) {
      num(RPL_NAMREPLY, "=", ch.name, cur.join(" "));
      cur = [];
    }
    cur.push(w);
  }
  if (cur.length) num(RPL_NAMREPLY, "=", ch.name, cur.join(" "));
  if (caps.has("draft/read-marker")) {
    const marker = await history.marker(scope, ch.name);
    if (marker) out.push(marker);
  }
  if (names) num(RPL_ENDOFNAMES, ch.name, "End of /NAMES list");
  return out;
}

/** A numeric from Parley to the client known as `nick`. */
export function numericLine(nick: string, code: string, ...params: string[]): string {
  return formatMessage({ prefix: SERVER_NAME, command: code, params: [nick, ...params] });
}

/** The burst of a client that manages networks and is bound to none. */
export function controlBurst(nick: string, version: string, extra: string[] = []): string[] {
  const num = (code: string, ...params: string[]) => numericLine(nick, code, ...params);
  return [
    num(RPL_WELCOME, `Welcome to Parley, ${nick}`),
    num(RPL_YOURHOST, `Your host is ${SERVER_NAME}`),
    num(RPL_CREATED, "This server is Parley, a bouncer with a web client"),
    num(RPL_MYINFO, SERVER_NAME, `parley-${version}`, "iow", "biklmnopstv"),
    num(RPL_ISUPPORT, "CASEMAPPING=rfc1459", ...extra, "are supported by this server"),
    num(ERR_NOMOTD, "MOTD File is missing"),
  ];
}
