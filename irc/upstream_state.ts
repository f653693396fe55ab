/**
 * One connection's server as its lines show it: the nick and the user's own source, the server's
 * 004 (its modes), ISUPPORT as the server spelled it, the MOTD, the capabilities, and each joined
 * channel with its topic. The connection owns it (irc/engine/connection.ts) and feeds it every
 * line once, as the socket hands it over, before anything else reads the line: the engine, the
 * chat handlers and the bouncer read the same one. The members of a channel are the connection's
 * shared lists (irc/chat/presence.ts), not kept here. Bounded: a hostile server cannot grow it
 * past the limits below. Every connection has one, listener or not: it is kept small (ISUPPORT as
 * one string, the values read often parsed once per change).
 */
import { type CaseMapping, ircLower } from "../lib/casefold.ts";
import { type IrcMessage, nickOf } from "./protocol/message.ts";
import {
  applyChannelModes,
  DEFAULT_CHANMODES,
  type ModeChange,
  modeChanges,
} from "./protocol/modes.ts";
import {
  applyListChanges,
  entryOf,
  hasRoom,
  type ListEntry,
  listLine,
  type ListMode,
  type Lists,
} from "./channel_lists.ts";
import {
  ERR_NOMOTD,
  RPL_CHANNELMODEIS,
  RPL_CREATIONTIME,
  RPL_ENDOFMOTD,
  RPL_ISUPPORT,
  RPL_MOTD,
  RPL_MOTDSTART,
  RPL_MYINFO,
  RPL_TOPIC,
  RPL_TOPICWHOTIME,
  RPL_WELCOME,
} from "./protocol/numerics.ts";

const MAX_CHANNELS = 1000;
const MAX_MOTD_LINES = 400;
const MAX_ISUPPORT_TOKENS = 200;
const MAX_CAPS = 100;

/** One joined channel. */
interface ChannelState {
  name: string;
  topic: string;
  topicBy: string;
  topicAt: string;
  /**
   * Its modes as RPL_CHANNELMODEIS gives them (`+ntk key`), kept up to date by MODE lines; ""
   * until the server told them (Parley asks after each join), or once a change could not be read.
   */
  modes: string;
  /** When the channel was made (RPL_CREATIONTIME, Unix seconds), "" when not told. */
  created: string;
  /** Its lists the server gave whole (channel_lists.ts); none until one is. */
  lists?: Lists;
}

/** Lists being received at once, at most: a server's unended lists are not kept. */
const MAX_LISTS_FILLING = 10;

/** A mode that ranks channel members and its sign (ISUPPORT PREFIX `(ov)@+`). */
interface PrefixMode {
  mode: string;
  symbol: string;
}

/** What a server is taken to mean without ISUPPORT PREFIX: the common five, highest first. */
const DEFAULT_PREFIX: readonly PrefixMode[] = [
  { symbol: "~", mode: "q" },
  { symbol: "&", mode: "a" },
  { symbol: "@", mode: "o" },
  { symbol: "%", mode: "h" },
  { symbol: "+", mode: "v" },
];

/** ISUPPORT values read often (every chat line asks CHANTYPES), parsed once per change. */
interface Parsed {
  casemapping: CaseMapping;
  chantypes: string[] | undefined;
  prefix: readonly PrefixMode[];
  prefixSymbols: string;
  chanmodes: readonly string[];
}

/** A server's state as its lines show it. */
export class UpstreamState {
  nick = "";
  server = "";
  /** The parameters of 004 after the nick: server name, version, user modes, channel modes. */
  myinfo: string[] = [];
  /**
   * ISUPPORT tokens in the order given, `NAME` or `NAME=value`, joined by spaces; `-NAME` removes
   * one. One flat string: a Map of slices kept each 005 line whole, for every connection.
   */
  #isupport = "";
  motd: string[] = [];
  /** A MOTD is being read (375 seen, 376 not yet). */
  #motdOpen = false;
  /** The server said it has no MOTD (422). */
  noMotd = false;
  channels = new Map<string, ChannelState>();
  /** The capabilities the server acknowledged (what it may send us, and we it). */
  caps = new Set<string>();
  /** The user's own `nick!user@host`, as the server last showed it ("" until then). */
  source = "";
  /** A multi-line `CAP LS` is being read. */
  #lsOpen = false;
  /** Lists being received (`channel mode`), their entries so far; null past their bound. */
  #filling: Map<string, ListEntry[] | null> | undefined; // made when a list first comes
  /** Some list's entries went unseen, the lists being received at their bound. */
  #fillingLost = false;
  /** Entries of every channel's known lists. */
  #listEntries = 0;
  #parsed: Parsed | undefined;

  /** The server's casemapping (rfc1459 unless it says ascii or strict-rfc1459). */
  get casemapping(): CaseMapping {
    return this.#values().casemapping;
  }

  /** CHANTYPES' characters; undefined when the server did not say (the usual four then). */
  get chantypes(): string[] | undefined {
    return this.#values().chantypes;
  }

  /** PREFIX: the modes that rank members, strongest first, with their signs. */
  get prefix(): readonly PrefixMode[] {
    return this.#values().prefix;
  }

  /** CHANMODES' four lists (lists, parameter always, parameter when set, none), or the usual. */
  get chanmodes(): readonly string[] {
    return this.#values().chanmodes;
  }

  /** LINELEN, when the server gave a number. */
  get linelen(): number | undefined {
    const n = Number(this.isupportValue("LINELEN"));
    return Number.isInteger(n) ? n : undefined;
  }

  /** MODES (mode changes with a parameter per MODE line), when the server gave a number. */
  get modes(): number | undefined {
    const n = Number(this.isupportValue("MODES"));
    return Number.isInteger(n) ? n : undefined;
  }

  /** The network's name (ISUPPORT NETWORK), "Network" until the server says it. */
  get networkName(): string {
    return this.isupportValue("NETWORK") || "Network";
  }

  /** Whether the server acknowledged the capability. */
  capEnabled(name: string): boolean {
    return this.caps.has(name);
  }

  /** PREFIX's symbols, strongest first ("@+" when the server gave none). */
  prefixSymbols(): string {
    return this.#values().prefixSymbols;
  }

  /** ISUPPORT's tokens as the server spelled them, in its order. */
  isupportTokens(): string[] {
    return this.#isupport ? this.#isupport.split(" ") : [];
  }

  /** Whether the server gave the ISUPPORT token, with a value or without. */
  isupportHas(name: string): boolean {
    return this.#token(name) !== undefined;
  }

  /** The ISUPPORT token named so (`NAME` or `NAME=value`), if the server gave it. */
  #token(name: string): string | undefined {
    const all = this.#isupport;
    for (let at = 0; at < all.length;) {
      const end = all.indexOf(" ", at);
      const stop = end < 0 ? all.length : end;
      if (
        all.startsWith(name, at) &&
        (at + name.length === stop || all.charCodeAt(at + name.length) === 61 /* = */)
      ) return all.slice(at, stop);
      at = stop + 1;
    }
    return undefined;
  }

  /** The value of an ISUPPORT token (undefined when absent or without one), `\xHH` unescaped. */
  isupportValue(name: string): string | undefined {
    const token = this.#token(name);
    const eq = token?.indexOf("=") ?? -1;
    if (eq < 0) return undefined;
    const value = token!.slice(eq + 1);
    return value.includes("\\x")
      ? value.replace(/\\x([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)))
      : value;
  }

  channel(name: string): ChannelState | undefined {
    return this.channels.get(ircLower(name));
  }

  /** A joined channel's list (bans: `b`) as the server last gave it whole; undefined if not. */
  list(channel: string, mode: ListMode): readonly ListEntry[] | undefined {
    return this.channel(channel)?.lists?.[mode];
  }

  /** Forgets the channel, its lists with it. */
  #leave(key: string): void {
    const lists = this.channels.get(key)?.lists;
    for (const list of Object.values(lists ?? {})) this.#listEntries -= list.length;
    this.channels.delete(key);
  }

  /** A list line (an entry, or the end that makes the entries so far the channel's list). */
  #listLine(line: { mode: ListMode; end: boolean }, p: string[]): void {
    const ch = this.channel(p[1] ?? "");
    const key = `${ircLower(p[1] ?? "")} ${line.mode}`;
    const under = this.#filling ??= new Map();
    const filling = under.get(key);
    if (!line.end) {
      if (!ch || filling === null) return;
      if (filling === undefined && under.size >= MAX_LISTS_FILLING) {
        // Its entries go unseen: an end with none seen may not be taken for an empty list.
        this.#fillingLost = true;
        return;
      }
      const entries = filling ?? [];
      const kept = hasRoom(entries.length, this.#listEntries + entries.length);
      if (kept) entries.push(entryOf(p.slice(2)));
      under.set(key, kept ? entries : null);
      return;
    }
    under.delete(key);
    const lost = filling === null || (filling === undefined && this.#fillingLost);
    if (!under.size) this.#fillingLost = false;
    if (!ch) return;
    const lists = ch.lists ??= {};
    this.#listEntries -= lists[line.mode]?.length ?? 0;
    delete lists[line.mode];
    if (lost) return;
    lists[line.mode] = filling ?? [];
    this.#listEntries += filling?.length ?? 0;
  }

  /** The user's source as the server shows it, else `nick!parley@<fallback host>`. */
  sourceOf(nick: string, host: string): string {
    return this.source && ircLower(nickOf(this.source)) === ircLower(nick)
      ? this.source
      : `${nick}!parley@${host}`;
  }

  /**
   * A fresh client connects: what it negotiates starts from nothing. The rest (channels, topics,
   * ISUPPORT, MOTD) stays until the server's welcome, for a client attaching meanwhile.
   */
  restart(): void {
    this.caps.clear();
    this.#lsOpen = false;
    this.#motdOpen = false;
  }

  /** Takes one line from the server. */
  see(m: IrcMessage): void {
    const command = m.command;
    if (command === "PRIVMSG" || command === "NOTICE") {
      // Most lines: only the user's own (echoed) ones say anything here, its source.
      const nick = this.nick;
      if (
        nick && m.prefix.charCodeAt(nick.length) === 33 /* ! */ && m.prefix.startsWith(nick)
      ) this.source = m.prefix;
      return;
    }
    const p = m.params;
    const from = nickOf(m.prefix);
    const me = this.nick && ircLower(from) === ircLower(this.nick);
    if (me && m.prefix.includes("!")) this.source = m.prefix;
    switch (command) {
      case "CAP":
        this.#cap(p);
        break;
      case RPL_WELCOME:
        this.nick = p[0] ?? this.nick;
        this.server = m.prefix;
        this.myinfo = [];
        this.#isupport = "";
        this.#parsed = undefined;
        this.channels.clear();
        this.#filling = undefined;
        this.#fillingLost = false;
        this.#listEntries = 0;
        this.motd = [];
        this.noMotd = false;
        break;
      case RPL_MYINFO:
        this.myinfo = p.slice(1, 5).map((w) => w.slice(0, 100));
        break;
      case RPL_ISUPPORT:
        this.#addTokens(p.slice(1, -1));
        break;
      case RPL_MOTDSTART:
        this.motd = [];
        this.#motdOpen = true;
        break;
      case RPL_MOTD:
        if (this.#motdOpen && this.motd.length < MAX_MOTD_LINES) this.motd.push(p.at(-1) ?? "");
        break;
      case RPL_ENDOFMOTD:
        this.#motdOpen = false;
        break;
      case ERR_NOMOTD:
        this.noMotd = true;
        break;
      case "NICK":
        if (me) {
          this.nick = p[0] ?? "";
          if (this.source) this.source = this.nick + this.source.slice(from.length);
        }
        break;
      case "JOIN": {
        const name = p[0] ?? "";
        if (me && this.channels.size < MAX_CHANNELS) {
          this.#leave(ircLower(name));
          this.channels.set(ircLower(name), {
            name,
            topic: "",
            topicBy: "",
            topicAt: "",
            modes: "",
            created: "",
          });
        }
        break;
      }
      case "PART":
        if (me) this.#leave(ircLower(p[0] ?? ""));
        break;
      case "KICK":
        if (ircLower(p[1] ?? "") === ircLower(this.nick)) this.#leave(ircLower(p[0] ?? ""));
        break;
      case RPL_TOPIC: {
        const ch = this.channel(p[1] ?? "");
        if (ch) ch.topic = p.at(-1) ?? "";
        break;
      }
      case RPL_TOPICWHOTIME: {
        const ch = this.channel(p[1] ?? "");
        if (ch) [ch.topicBy, ch.topicAt] = [p[2] ?? "", p[3] ?? ""];
        break;
      }
      case RPL_CHANNELMODEIS: {
        const ch = this.channel(p[1] ?? "");
        if (ch) ch.modes = this.#modesAfter("+", this.#changes(p[2] ?? "", p.slice(3)));
        break;
      }
      case RPL_CREATIONTIME: {
        const ch = this.channel(p[1] ?? "");
        if (ch && /^[0-9]{1,12}$/.test(p[2] ?? "")) ch.created = p[2];
        break;
      }
      case "MODE": {
        const ch = this.channel(p[0] ?? "");
        if (!ch || (!ch.modes && !ch.lists)) break;
        const changes = this.#changes(p[1] ?? "", p.slice(2));
        if (ch.modes) ch.modes = this.#modesAfter(ch.modes, changes);
        if (ch.lists) {
          const now = String(Math.floor(Date.now() / 1000));
          this.#listEntries = applyListChanges(
            ch.lists,
            changes,
            m.prefix,
            now,
            ircLower,
            this.#listEntries,
          );
        }
        break;
      }
      case "TOPIC": {
        const ch = this.channel(p[0] ?? "");
        if (ch) {
          ch.topic = p[1] ?? "";
          ch.topicBy = from;
          ch.topicAt = String(Math.floor(Date.now() / 1000));
        }
        break;
      }
      default: {
        const line = listLine(command);
        if (line) this.#listLine(line, p);
      }
    }
  }

  /** PREFIX's modes alone, as the mode string readers take them (read on MODE lines only). */
  #prefixModes(): string[] {
    return this.prefix.map((p) => p.mode);
  }

  /** The changes of a mode string and its parameters, read by the server's CHANMODES. */
  #changes(change: string, params: string[]): ModeChange[] {
    return modeChanges(
      change.startsWith("+") || change.startsWith("-") ? change : `+${change}`,
      params,
      this.#values().chanmodes,
      this.#prefixModes(),
    );
  }

  /** A channel's modes `current` after `changes`. */
  #modesAfter(current: string, changes: ModeChange[]): string {
    return applyChannelModes(
      current,
      changes,
      this.#values().chanmodes,
      this.#prefixModes(),
    );
  }

  /** `CAP * LS` starts a new negotiation; ACK, NEW-then-ACK and DEL change what is on. */
  #cap(p: string[]): void {
    const sub = (p[1] ?? "").toUpperCase();
    const names = (p.at(-1) ?? "").split(" ").filter(Boolean).slice(0, MAX_CAPS);
    if (sub === "LS" && !this.#lsOpen) this.caps.clear();
    if (sub === "LS") this.#lsOpen = p[2] === "*";
    if (sub === "ACK") {
      for (const n of names) {
        if (n.startsWith("-")) this.caps.delete(n.slice(1));
        else if (this.caps.size < MAX_CAPS) this.caps.add(n);
      }
    }
    if (sub === "DEL") { for (const n of names) this.caps.delete(n); }
  }

  /** One 005's tokens: each replaces the one of its name, `-NAME` removes it. */
  #addTokens(given: string[]): void {
    const tokens = this.isupportTokens();
    const nameOf = (t: string) => {
      const eq = t.indexOf("=");
      return eq < 0 ? t : t.slice(0, eq);
    };
    for (const token of given) {
      // A space cannot be in a parameter; an empty one says nothing.
      if (!token || token === "-") continue;
      const removing = token.startsWith("-");
      const name = nameOf(removing ? token.slice(1) : token);
      const at = tokens.findIndex((t) => nameOf(t) === name);
      if (removing) {
        if (at >= 0) tokens.splice(at, 1);
      } else if (at >= 0) tokens[at] = token;
      else if (tokens.length < MAX_ISUPPORT_TOKENS) tokens.push(token);
    }
    // join copies the characters: the 005 lines the tokens were cut from are not kept.
    this.#isupport = tokens.join(" ");
    this.#parsed = undefined;
  }

  #values(): Parsed {
    if (this.#parsed) return this.#parsed;
    const mapping = this.isupportValue("CASEMAPPING");
    const types = this.isupportValue("CHANTYPES");
    const prefix = this.isupportValue("PREFIX");
    return this.#parsed = {
      casemapping: mapping === "ascii" || mapping === "strict-rfc1459" ? mapping : "rfc1459",
      chantypes: types === undefined ? undefined : types.split(""),
      prefix: parsePrefix(this.#token("PREFIX") === undefined ? undefined : prefix ?? ""),
      prefixSymbols: /^\([^)]*\)(.*)$/.exec(prefix ?? "(ov)@+")?.[1] ?? "@+",
      chanmodes: this.isupportValue("CHANMODES")?.split(",") ?? DEFAULT_CHANMODES,
    };
  }
}

/** PREFIX's value as modes and signs; the default without one, none for an empty or odd one. */
function parsePrefix(value: string | undefined): readonly PrefixMode[] {
  if (value === undefined) return DEFAULT_PREFIX;
  const m = /^\(([^)]*)\)(.*)$/.exec(value);
  if (!m) return [];
  const out: PrefixMode[] = [];
  for (let i = 0; i < m[2].length && i < m[1].length; i++) {
    out.push({ symbol: m[2][i], mode: m[1][i] });
  }
  return out;
}
