/**
 * What an attaching client must be told about its connection, kept from the server's own lines:
 * the nick, the greeting (002-004), ISUPPORT, the MOTD, and each joined channel with its topic
 * and members. Bounded: a hostile server cannot grow it past the limits below.
 */
import { ircLower } from "../irc/casefold.ts";
import { type Message, nickOf } from "./wire.ts";

const MAX_CHANNELS = 1000;
const MAX_MEMBERS = 20_000;
const MAX_MOTD_LINES = 400;
const MAX_ISUPPORT_TOKENS = 200;

/** One joined channel. */
export interface ChannelState {
  name: string;
  topic: string;
  topicBy: string;
  topicAt: string;
  /** Nick -> its prefix symbols (`@`, `+`, `@+` ...), in the server's order. */
  members: Map<string, string>;
  /** A NAMES reply ended (366): the next 353 starts the list over. */
  namesDone: boolean;
}

/** A server's state as its lines show it. */
export class UpstreamState {
  nick = "";
  server = "";
  /** The parameters of 002, 003 and 004 after the nick. */
  greeting = new Map<string, string[]>();
  /** ISUPPORT tokens in the order given, `NAME` or `NAME=value`; `-NAME` removes one. */
  isupport = new Map<string, string>();
  motd: string[] = [];
  /** A MOTD is being read (375 seen, 376 not yet). */
  #motdOpen = false;
  /** The server said it has no MOTD (422). */
  noMotd = false;
  channels = new Map<string, ChannelState>();
  /** The capabilities the server acknowledged (what it may send us, and we it). */
  caps = new Set<string>();
  /** `nick!user@host` of people seen lately, so a stored message can carry its source. */
  sources = new Map<string, string>();
  #members = 0;
  /** A multi-line `CAP LS` is being read. */
  #lsOpen = false;

  /** PREFIX's symbols, strongest first. */
  prefixSymbols(): string {
    const m = /^\([^)]*\)(.*)$/.exec(this.isupportValue("PREFIX") ?? "(ov)@+");
    return m?.[1] ?? "@+";
  }

  /** The value of an ISUPPORT token (undefined when absent or without one). */
  isupportValue(name: string): string | undefined {
    const token = this.isupport.get(name);
    const eq = token?.indexOf("=") ?? -1;
    return eq < 0 ? undefined : token!.slice(eq + 1);
  }

  channel(name: string): ChannelState | undefined {
    return this.channels.get(ircLower(name));
  }

  #remember(prefix: string): void {
    if (!prefix.includes("!")) return;
    const key = ircLower(nickOf(prefix));
    this.sources.delete(key);
    this.sources.set(key, prefix);
    if (this.sources.size > 5000) this.sources.delete(this.sources.keys().next().value!);
  }

  /** Takes one line from the server. */
  see(m: Message): void {
    const p = m.params;
    const from = nickOf(m.prefix);
    const me = this.nick && ircLower(from) === ircLower(this.nick);
    this.#remember(m.prefix);
    switch (m.command) {
      case "CAP":
        this.#cap(p);
        break;
      case "001":
        this.nick = p[0] ?? this.nick;
        this.server = m.prefix;
        this.greeting.clear();
        this.isupport.clear();
        this.channels.clear();
        this.#members = 0;
        this.motd = [];
        this.noMotd = false;
        break;
      case "002":
      case "003":
      case "004":
        this.greeting.set(m.command, p.slice(1));
        break;
      case "005":
        for (const token of p.slice(1, -1)) {
          if (token.startsWith("-")) this.isupport.delete(token.slice(1).split("=")[0]);
          else if (this.isupport.size < MAX_ISUPPORT_TOKENS) {
            this.isupport.set(token.split("=")[0], token);
          }
        }
        break;
      case "375":
        this.motd = [];
        this.#motdOpen = true;
        break;
      case "372":
        if (this.#motdOpen && this.motd.length < MAX_MOTD_LINES) this.motd.push(p.at(-1) ?? "");
        break;
      case "376":
        this.#motdOpen = false;
        break;
      case "422":
        this.noMotd = true;
        break;
      case "NICK": {
        const to = p[0] ?? "";
        if (me) this.nick = to;
        for (const ch of this.channels.values()) {
          const mode = ch.members.get(from);
          if (mode === undefined) continue;
          ch.members.delete(from);
          ch.members.set(to, mode);
        }
        break;
      }
      case "JOIN": {
        const name = p[0] ?? "";
        if (me) {
          if (this.channels.size < MAX_CHANNELS) {
            this.channels.set(ircLower(name), {
              name,
              topic: "",
              topicBy: "",
              topicAt: "",
              members: new Map(),
              namesDone: true,
            });
          }
        } else this.#add(this.channel(name), from, "");
        break;
      }
      case "PART":
        this.#leave(p[0] ?? "", from, !!me);
        break;
      case "KICK":
        this.#leave(p[0] ?? "", p[1] ?? "", ircLower(p[1] ?? "") === ircLower(this.nick));
        break;
      case "QUIT":
        for (const ch of this.channels.values()) {
          if (ch.members.delete(from)) this.#members--;
        }
        break;
      case "332": {
        const ch = this.channel(p[1] ?? "");
        if (ch) ch.topic = p.at(-1) ?? "";
        break;
      }
      case "333": {
        const ch = this.channel(p[1] ?? "");
        if (ch) [ch.topicBy, ch.topicAt] = [p[2] ?? "", p[3] ?? ""];
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
      case "353": {
        const ch = this.channel(p[2] ?? "");
        if (!ch) break;
        if (ch.namesDone) {
          this.#members -= ch.members.size;
          ch.members.clear();
          ch.namesDone = false;
        }
        const symbols = this.prefixSymbols();
        for (const word of (p[3] ?? "").split(" ")) {
          let i = 0;
          while (i < word.length && symbols.includes(word[i])) i++;
          if (word.slice(i)) this.#add(ch, nickOf(word.slice(i)), word.slice(0, i));
        }
        break;
      }
      case "366": {
        const ch = this.channel(p[1] ?? "");
        if (ch) ch.namesDone = true;
        break;
      }
      case "MODE":
        this.#mode(p);
        break;
    }
  }

  /** `CAP * LS` starts a new negotiation; ACK, NEW-then-ACK and DEL change what is on. */
  #cap(p: string[]): void {
    const sub = (p[1] ?? "").toUpperCase();
    const names = (p.at(-1) ?? "").split(" ").filter(Boolean).slice(0, 100);
    if (sub === "LS" && !this.#lsOpen) this.caps.clear();
    if (sub === "LS") this.#lsOpen = p[2] === "*";
    if (sub === "ACK") {
      for (const n of names) {
        if (n.startsWith("-")) this.caps.delete(n.slice(1));
        else this.caps.add(n);
      }
    }
    if (sub === "DEL") { for (const n of names) this.caps.delete(n); }
  }

  #add(ch: ChannelState | undefined, nick: string, mode: string): void {
    if (!ch || !nick) return;
    if (!ch.members.has(nick)) {
      if (this.#members >= MAX_MEMBERS) return;
      this.#members++;
    }
    ch.members.set(nick, mode);
  }

  #leave(name: string, nick: string, me: boolean): void {
    const ch = this.channel(name);
    if (!ch) return;
    if (me) {
      this.#members -= ch.members.size;
      this.channels.delete(ircLower(name));
    } else if (ch.members.delete(nick)) this.#members--;
  }

  /** Member prefixes given and taken (`MODE #c +o-v a b`). */
  #mode(p: string[]): void {
    const ch = this.channel(p[0] ?? "");
    if (!ch) return;
    const m = /^\(([^)]*)\)(.*)$/.exec(this.isupportValue("PREFIX") ?? "(ov)@+");
    const modes = m?.[1] ?? "ov";
    const symbols = m?.[2] ?? "@+";
    let adding = true;
    let arg = 2;
    for (const c of p[1] ?? "") {
      if (c === "+" || c === "-") {
        adding = c === "+";
        continue;
      }
      const at = modes.indexOf(c);
      if (at < 0) {
        // Modes with a parameter take one (lists, keys, limits when set): skip it.
        if ("beIkfjl".includes(c) && (adding || "beIk".includes(c))) arg++;
        continue;
      }
      const nick = p[arg++] ?? "";
      const key = [...ch.members.keys()].find((n) => ircLower(n) === ircLower(nick));
      if (key === undefined) continue;
      const cur = ch.members.get(key) ?? "";
      const sym = symbols[at];
      const next = adding ? (cur.includes(sym) ? cur : cur + sym) : cur.replace(sym, "");
      ch.members.set(key, [...symbols].filter((s) => next.includes(s)).join(""));
    }
  }
}
