/**
 * What an attaching client must be told about its connection that the connection does not keep
 * itself, read from the server's own lines: the nick and the user's own source, the greeting
 * (002-004), ISUPPORT as the server spelled it, the MOTD, the capabilities, and each joined
 * channel with its topic. The members of a channel are the connection's (irc/chat/presence.ts,
 * shared per network): bouncer/burst.ts reads them there. Bounded: a hostile server cannot grow
 * it past the limits below.
 */
import { ircLower } from "../lib/casefold.ts";
import { type IrcMessage, nickOf } from "../irc/protocol/message.ts";
import {
  ERR_NOMOTD,
  RPL_CREATED,
  RPL_ENDOFMOTD,
  RPL_ISUPPORT,
  RPL_MOTD,
  RPL_MOTDSTART,
  RPL_MYINFO,
  RPL_TOPIC,
  RPL_TOPICWHOTIME,
  RPL_WELCOME,
  RPL_YOURHOST,
} from "../irc/protocol/numerics.ts";

const MAX_CHANNELS = 1000;
const MAX_MOTD_LINES = 400;
const MAX_ISUPPORT_TOKENS = 200;

/** One joined channel. */
export interface ChannelState {
  name: string;
  topic: string;
  topicBy: string;
  topicAt: string;
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
  /** The user's own `nick!user@host`, as the server last showed it ("" until then). */
  source = "";
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

  /** The user's source as the server shows it, else `nick!parley@<fallback host>`. */
  sourceOf(nick: string, host: string): string {
    return this.source && ircLower(nickOf(this.source)) === ircLower(nick)
      ? this.source
      : `${nick}!parley@${host}`;
  }

  /** Takes one line from the server. */
  see(m: IrcMessage): void {
    const p = m.params;
    const from = nickOf(m.prefix);
    const me = this.nick && ircLower(from) === ircLower(this.nick);
    if (me && m.prefix.includes("!")) this.source = m.prefix;
    switch (m.command) {
      case "CAP":
        this.#cap(p);
        break;
      case RPL_WELCOME:
        this.nick = p[0] ?? this.nick;
        this.server = m.prefix;
        this.greeting.clear();
        this.isupport.clear();
        this.channels.clear();
        this.motd = [];
        this.noMotd = false;
        break;
      case RPL_YOURHOST:
      case RPL_CREATED:
      case RPL_MYINFO:
        this.greeting.set(m.command, p.slice(1));
        break;
      case RPL_ISUPPORT:
        for (const token of p.slice(1, -1)) {
          if (token.startsWith("-")) this.isupport.delete(token.slice(1).split("=")[0]);
          else if (this.isupport.size < MAX_ISUPPORT_TOKENS) {
            this.isupport.set(token.split("=")[0], token);
          }
        }
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
          this.channels.set(ircLower(name), { name, topic: "", topicBy: "", topicAt: "" });
        }
        break;
      }
      case "PART":
        if (me) this.channels.delete(ircLower(p[0] ?? ""));
        break;
      case "KICK":
        if (ircLower(p[1] ?? "") === ircLower(this.nick)) {
          this.channels.delete(ircLower(p[0] ?? ""));
        }
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
      case "TOPIC": {
        const ch = this.channel(p[0] ?? "");
        if (ch) {
          ch.topic = p[1] ?? "";
          ch.topicBy = from;
          ch.topicAt = String(Math.floor(Date.now() / 1000));
        }
        break;
      }
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
}
