/**
 * Registration on an IRC server: CAP 302 negotiation, SASL (PLAIN or EXTERNAL), the greeting,
 * nick collisions and the server's refusals. One handler per command, each given the parsed line;
 * they write through the client's `RegistrationWire` and tell what happened as its events. The
 * capabilities the server acknowledged are the connection's upstream state's (it sees every line
 * first), so nothing here keeps a second copy of them.
 */
import { ircLine, type IrcMessage as Message } from "../protocol/message.ts";
import {
  ERR_ERRONEUSNICKNAME,
  ERR_NICKCOLLISION,
  ERR_NICKLOCKED,
  ERR_NICKNAMEINUSE,
  ERR_PASSWDMISMATCH,
  ERR_SASLABORTED,
  ERR_SASLFAIL,
  ERR_SASLTOOLONG,
  ERR_UNAVAILRESOURCE,
  ERR_YOUREBANNEDCREEP,
  RPL_LOGGEDIN,
  RPL_SASLSUCCESS,
  RPL_WELCOME,
} from "../protocol/numerics.ts";
import type { IrcEventName, IrcEvents } from "./events.ts";
import { type Webirc, webircWord } from "../webirc.ts";

/** How the connection registers. */
export interface RegistrationOptions {
  nick: string;
  username: string;
  /** The real name (USER's last parameter). */
  gecos: string;
  /** The server password, sent as PASS. */
  password?: string;
  /** SASL: PLAIN with an account and password, or EXTERNAL (the client certificate). */
  sasl?: { mechanism: "PLAIN"; account: string; password: string } | { mechanism: "EXTERNAL" };
  /** Sent first, when the host's profile makes Parley a gateway (irc/webirc.ts). */
  webirc?: Webirc;
}

/** What registration writes to and reads. */
interface RegistrationWire {
  write(line: string): void;
  emit<K extends IrcEventName>(event: K, ev: IrcEvents[K]): void;
  /** Whether the server acknowledged the capability (the connection's upstream state). */
  capEnabled(name: string): boolean;
}

/**
 * The capabilities asked of every server that offers them: what the chat handlers read (server
 * times, batches, member modes, away and account changes) and what the listener offers its IRC
 * clients, which carries nothing unless the server sends it (chghost, setname, message-tags...).
 * The `znc.in/` names are the server times of older ZNC, read as `server-time` is.
 */
const WANTED: ReadonlySet<string> = new Set([
  "cap-notify",
  "batch",
  "multi-prefix",
  "message-tags",
  "away-notify",
  "invite-notify",
  "account-notify",
  "account-tag",
  "server-time",
  "userhost-in-names",
  "extended-join",
  "chghost",
  "setname",
  "echo-message",
  // What a gap cost, asked of a server that keeps history (irc/chat/inbound/backfill.ts), with
  // the channel events in it (backfill_events.ts).
  "draft/chathistory",
  "draft/event-playback",
  // News of the people the listener's clients watch (MONITOR), outside the user's channels.
  "extended-monitor",
  "draft/extended-monitor",
  // The listener sends a client's query with a label of its own, to tell its answer.
  "labeled-response",
  "znc.in/server-time-iso",
  "znc.in/server-time",
]);

/** Most capabilities read from one negotiation (a hostile server may list thousands). */
const MAX_OFFERED = 200;

/** SASL's AUTHENTICATE carries at most 400 bytes of base64 a line. */
const AUTHENTICATE_CHUNK = 400;

/** Why SASL did not log in, as the connection reports it. */
type SaslFailure =
  | "capability_missing"
  | "unsupported_mechanism"
  | "nick_locked"
  | "fail"
  | "too_long"
  | "aborted";

/** One connection's registration: what it asked and where the negotiation stands. */
export class Registration {
  /** Capabilities requested and not yet answered. */
  #asked: string[] = [];
  /** The `sasl` capability's value in CAP LS (its mechanisms, SASL 3.2); "" without one. */
  #mechanisms: string | undefined;
  /** CAP negotiation is open (CAP END not yet sent). */
  #negotiating = false;
  /** AUTHENTICATE was sent; SASL's outcome decides when CAP ends. */
  #authenticating = false;
  /** The server's 001 came. */
  #registered = false;
  /** SASL's outcome is known (logged in, or told as failed). */
  #saslSettled = false;

  constructor(readonly options: RegistrationOptions, readonly wire: RegistrationWire) {}

  /** The socket is open: ask for capabilities, then give the password, nick and user. */
  start(): void {
    const o = this.options;
    const w = this.wire;
    if (o.webirc) {
      const { password, hostname, address } = o.webirc;
      // Before anything else: the server decides who is connecting as it reads it.
      w.write(ircLine("WEBIRC", password, "parley", webircWord(hostname), webircWord(address)));
    }
    // Version 302: capability values (SASL's mechanisms) and LS in several lines.
    w.write("CAP LS 302");
    if (o.password) w.write(ircLine("PASS", o.password));
    w.write(ircLine("NICK", o.nick));
    w.write(ircLine("USER", o.username, "0", "*", o.gecos));
  }

  /** Handles one of REGISTRATION's lines; other commands are not read here. */
  handle(m: Message): void {
    HANDLERS.get(m.command)?.(this, m);
  }

  #endCap(): void {
    if (!this.#negotiating) return;
    this.#negotiating = false;
    this.#authenticating = false;
    this.wire.write(ircLine("CAP", "END"));
  }

  #saslFailed(reason: SaslFailure): void {
    this.#saslSettled = true;
    this.wire.emit("sasl failed", { reason });
  }

  /** CAP LS (one line of several with `*`), ACK, NAK, NEW, DEL. */
  cap(m: Message): void {
    const sub = (m.params[1] ?? "").toUpperCase();
    const more = m.params.length > 3 && m.params[2] === "*";
    const names = (m.params.at(-1) ?? "").split(" ").filter(Boolean).slice(0, MAX_OFFERED);
    const sasl = this.options.sasl;
    if (sub === "LS" || sub === "NEW") {
      const ask: string[] = [];
      for (const token of names) {
        const eq = token.indexOf("=");
        const name = eq < 0 ? token : token.slice(0, eq);
        if (name === "sasl") this.#mechanisms = eq < 0 ? "" : token.slice(eq + 1);
        if ((WANTED.has(name) || (name === "sasl" && sasl)) && !this.wire.capEnabled(name)) {
          ask.push(name);
        }
      }
      if (sub === "NEW") {
        if (ask.length) this.#ask(ask);
        return;
      }
      // An LS once negotiation is under way or over (nobody asked again) changes nothing.
      if (this.#negotiating || this.#registered) return;
      this.#asked.push(...ask);
      if (more) return;
      this.#negotiating = true;
      if (this.#asked.length) this.#request(this.#asked);
      else this.#negotiated();
    } else if (sub === "ACK" || sub === "NAK") {
      const answered = new Set(names.map((n) => n.replace(/^-/, "")));
      this.#asked = this.#asked.filter((n) => !answered.has(n));
      if (sub === "ACK" && sasl && names.includes("sasl") && this.#negotiating) {
        const offered = (this.#mechanisms ?? "").toUpperCase().split(",");
        if (!this.#mechanisms || offered.includes(sasl.mechanism)) {
          this.#authenticating = true;
          this.wire.write(ircLine("AUTHENTICATE", sasl.mechanism));
        } else this.#saslFailed("unsupported_mechanism");
      }
      if (!this.#asked.length && !this.#authenticating) this.#negotiated();
    }
  }

  /** Asks for capabilities the server added (CAP NEW), after registration too. */
  #ask(names: string[]): void {
    this.#asked.push(...names);
    this.#request(names);
  }

  /**
   * CAP REQ with its list as the trailing parameter, as the spec writes it even for one name
   * (the names are WANTED's or `sasl`, never anything a server made up).
   */
  #request(names: string[]): void {
    this.wire.write(`CAP REQ :${names.join(" ")}`);
  }

  /** Every request is answered and SASL (if any) did not start: registration goes on. */
  #negotiated(): void {
    if (!this.#negotiating) return;
    if (this.options.sasl && !this.wire.capEnabled("sasl")) this.#saslFailed("capability_missing");
    this.#endCap();
  }

  /** The server's `AUTHENTICATE +`: the credentials, in chunks of 400 bytes of base64. */
  authenticate(m: Message): void {
    const sasl = this.options.sasl;
    if (!this.#authenticating || !sasl) return;
    // Anything but "+" is a challenge neither mechanism has: SASL is aborted, and has failed.
    if (m.params[0] !== "+") {
      this.#authenticating = false;
      this.wire.write(ircLine("AUTHENTICATE", "*"));
      return this.saslEnded("fail");
    }
    if (sasl.mechanism === "EXTERNAL") return this.wire.write(ircLine("AUTHENTICATE", "+"));
    const bytes = new TextEncoder().encode(`${sasl.account}\0${sasl.account}\0${sasl.password}`);
    const b64 = btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
    for (let at = 0; at < b64.length; at += AUTHENTICATE_CHUNK) {
      this.wire.write(ircLine("AUTHENTICATE", b64.slice(at, at + AUTHENTICATE_CHUNK)));
    }
    // A payload that ends on a chunk's boundary (or is empty) is ended by a lone "+".
    if (b64.length % AUTHENTICATE_CHUNK === 0) this.wire.write(ircLine("AUTHENTICATE", "+"));
  }

  /** SASL ended: logged in, failed or aborted; registration goes on (or the connection ends it). */
  saslEnded(failure?: SaslFailure): void {
    if (failure) this.#saslFailed(failure);
    else this.#saslSettled = true;
    this.#endCap();
  }

  /** 001: registered under the nick the server gives. */
  welcome(m: Message): void {
    // A server that knows no CAP greets without SASL: a login asked for did not happen.
    if (this.options.sasl && !this.#saslSettled) this.#saslFailed("capability_missing");
    this.#registered = true;
    this.#negotiating = false;
    this.#authenticating = false;
    this.#asked = [];
    this.wire.emit("registered", { nick: m.params[0] ?? this.options.nick });
  }
}

type Handler = (r: Registration, m: Message) => void;

const last = (m: Message) => m.params.at(-1);

const nickInUse: Handler = (r, m) =>
  r.wire.emit("nick in use", { nick: m.params[1], reason: last(m) });

/** Registration's handlers, by command (a Map: a command named `constructor` finds nothing). */
const HANDLERS: ReadonlyMap<string, Handler> = new Map(Object.entries(
  {
    CAP: (r, m) => r.cap(m),
    AUTHENTICATE: (r, m) => r.authenticate(m),
    [RPL_WELCOME]: (r, m) => r.welcome(m),
    [ERR_NICKNAMEINUSE]: nickInUse,
    // A nick held after a collision or by services' hold: another nick is tried, as for 433.
    [ERR_NICKCOLLISION]: nickInUse,
    [ERR_UNAVAILRESOURCE]: nickInUse,
    [ERR_ERRONEUSNICKNAME]: (r, m) =>
      r.wire.emit("nick invalid", { nick: m.params[1], reason: last(m) }),
    [ERR_PASSWDMISMATCH]: (r) => r.wire.emit("irc error", { error: "password_mismatch" }),
    [ERR_YOUREBANNEDCREEP]: (r, m) =>
      r.wire.emit("irc error", { error: "banned_from_network", reason: last(m) }),
    ERROR: (r, m) => r.wire.emit("irc error", { error: "irc", reason: last(m) }),
    [RPL_LOGGEDIN]: (r) => r.saslEnded(),
    [RPL_SASLSUCCESS]: (r) => r.saslEnded(),
    [ERR_NICKLOCKED]: (r) => r.saslEnded("nick_locked"),
    [ERR_SASLFAIL]: (r) => r.saslEnded("fail"),
    [ERR_SASLTOOLONG]: (r) => r.saslEnded("too_long"),
    [ERR_SASLABORTED]: (r) => r.saslEnded("aborted"),
  } satisfies Record<string, Handler>,
));

/** The commands registration reads: every other line is the chat handlers' alone. */
export const REGISTRATION_COMMANDS: ReadonlySet<string> = new Set(HANDLERS.keys());
