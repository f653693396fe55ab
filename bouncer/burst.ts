/**
 * The registration burst of an attaching client: 001-005 (the server's ISUPPORT plus Parley's own
 * tokens), the MOTD or 422, then each channel as if just joined: JOIN, topic (332/333), names
 * (353/366), with the read marker before 366 for clients that take read markers.
 */
import type { HistoryScope, HistoryService } from "./history.ts";
import type { Hub } from "./relay.ts";
import type { Caps } from "./caps.ts";
import { forClient } from "./filter.ts";
import { formatLine, type Message } from "./wire.ts";

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

/** Names per 353 line: fits 512 bytes with a long channel name and prefix. */
const NAMES_BYTES = 380;

/** Every line of the burst, in order. */
export async function burstLines(
  hub: Hub,
  caps: Caps,
  history: HistoryService,
  scope: HistoryScope,
  version: string,
): Promise<string[]> {
  const nick = hub.nick;
  const s = hub.state;
  const out: string[] = [];
  const num = (code: string, ...params: string[]) =>
    out.push(formatLine(code, [nick, ...params], { prefix: SERVER_NAME }));
  num("001", `Welcome to Parley, ${nick}`);
  num("002", `Your host is ${SERVER_NAME}, relaying ${s.server || "an IRC server"}`);
  num("003", "This server is Parley, a bouncer with a web client");
  const g4 = s.greeting.get("004");
  num("004", SERVER_NAME, `parley-${version}`, g4?.[2] ?? "iow", g4?.[3] ?? "biklmnopstv");
  const own = ownTokens(hub, history);
  const ownNames = new Set(own.map((t) => t.split("=")[0]));
  const tokens = [...s.isupport.values()].filter((t) => !ownNames.has(t.split("=")[0]))
    .concat(own);
  for (let i = 0; i < tokens.length; i += 12) {
    num("005", ...tokens.slice(i, i + 12), "are supported by this server");
  }
  if (s.motd.length) {
    num("375", `- ${SERVER_NAME} Message of the day - `);
    for (const line of s.motd) num("372", line);
    num("376", "End of /MOTD command.");
  } else num("422", "MOTD File is missing");
  const me = s.sourceOf(nick, SERVER_NAME);
  const prefix = /^\(([^)]*)\)(.*)$/.exec(s.isupportValue("PREFIX") ?? "(ov)@+");
  /** A member's prefix symbols (strongest first) from its mode letters. */
  const symbolsOf = (modes: string[]) => {
    const [letters, symbols] = [prefix?.[1] ?? "ov", prefix?.[2] ?? "@+"];
    return [...letters].flatMap((l, i) => modes.includes(l) ? [symbols[i] ?? ""] : []).join("");
  };
  for (const ch of s.channels.values()) {
    const join: Message = {
      tags: new Map(),
      prefix: me,
      command: "JOIN",
      params: [ch.name, "*", "Parley user"],
    };
    const line = forClient(caps, join, { prefixes: s.prefixSymbols(), myNick: nick });
    if (line) out.push(line);
    if (ch.topic) {
      num("332", ch.name, ch.topic);
      if (ch.topicBy) num("333", ch.name, ch.topicBy, ch.topicAt || "0");
    }
    // The connection's own list (irc/chat/presence.ts, shared per network), once its NAMES ended.
    const members = await hub.conn?.members(ch.name) ?? [{ nick, modes: [] }];
    const words = members.map(({ nick: n, modes }) => {
      const mode = symbolsOf(modes);
      return caps.has("multi-prefix") ? mode + n : (mode[0] ?? "") + n;
    });
    let cur: string[] = [];
    for (const w of words) {
      if (cur.length && [...cur, w].join(" ").length > NAMES_BYTES) {
        num("353", "=", ch.name, cur.join(" "));
        cur = [];
      }
      cur.push(w);
    }
    if (cur.length) num("353", "=", ch.name, cur.join(" "));
    if (caps.has("draft/read-marker")) {
      const marker = await history.marker(scope, ch.name);
      if (marker) out.push(marker);
    }
    num("366", ch.name, "End of /NAMES list");
  }
  return out;
}

/** The burst of a client that manages networks and is bound to none. */
export function controlBurst(nick: string, version: string): string[] {
  const num = (code: string, ...params: string[]) =>
    formatLine(code, [nick, ...params], { prefix: SERVER_NAME });
  return [
    num("001", `Welcome to Parley, ${nick}`),
    num("002", `Your host is ${SERVER_NAME}`),
    num("003", "This server is Parley, a bouncer with a web client"),
    num("004", SERVER_NAME, `parley-${version}`, "iow", "biklmnopstv"),
    num("005", "CASEMAPPING=rfc1459", "are supported by this server"),
    num("422", "MOTD File is missing"),
  ];
}
