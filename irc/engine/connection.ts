/**
 * One IRC connection of one Parley connection: its state machine, reconnects with backoff, the
 * flood-controlled send queue, CTCP answers and nick regain. What the lines mean for the user
 * (stored messages, events) is `irc/chat/inbound/`'s job; when to connect is the manager's.
 */
import type { ConnectionRecord } from "../../store/connections.ts";
import { log } from "../../lib/log.ts";
import { backoffDelay } from "./backoff.ts";
import { type CaseMapping, ircLower, isChannel } from "../../lib/casefold.ts";
import { IrcClient } from "./client.ts";
import type { IrcEvents, WhoisReply } from "./events.ts";
import type { RegistrationOptions } from "./registration.ts";
import type { Webirc } from "../webirc.ts";
import { LINE_LIMIT, splitText, textBudget } from "./split.ts";
import { DEFAULT_TIMING, type IrcTiming } from "./timing.ts";
import { TokenBucket } from "./token_bucket.ts";
import {
  ACTION_OVERHEAD,
  actionWrap,
  ctcpAnswer,
  ctcpParts,
  ctcpWrap,
  isWholeCtcp,
} from "../protocol/ctcp.ts";
import {
  formatMessage,
  type IrcLine,
  ircLine,
  type IrcMessage as Message,
  nickOf,
  paramsOf,
  readHead,
  sourceOf,
} from "../protocol/message.ts";
import { publicAddress, TransportRefusal } from "../socket/target.ts";
import type { LineSink, SocketSettings } from "../socket/transport.ts";
import { type IrcUrl, LINE_BREAKING, parseIrcUrl } from "../url.ts";
import type { ConnectionState } from "../../protocol/resources.ts";
import { UpstreamState } from "../upstream_state.ts";
import type { IdentTable } from "../identd.ts";
import {
  ERR_BANNICKCHANGE,
  ERR_ERRONEUSNICKNAME,
  ERR_NICKCOLLISION,
  ERR_NICKNAMEINUSE,
  ERR_NICKTOOFAST,
  ERR_UNAVAILRESOURCE,
  RPL_ISUPPORT,
} from "../protocol/numerics.ts";

/** What a connection tells its owner. */
export interface ConnectionListener {
  /** State or info changed. */
  changed(conn: IrcConnection): void;
  /**
   * A new client was created: attach the handlers of incoming lines; what they give back takes
   * the client's lines.
   */
  attach(conn: IrcConnection, client: IrcClient): InboundLines;
  /** Registration completed: run on-connect commands, rejoin channels. */
  registered(conn: IrcConnection): void;
  /** The backoff delay passed: the connection waits for its turn to connect to its host. */
  retry(conn: IrcConnection): void;
  /** The connection is stopped for good (`dispose`). */
  gone(conn: IrcConnection): void;
  /**
   * A PRIVMSG or NOTICE is being written to the server, in the socket's order (a server with
   * echo-message echoes in that order): its target, and the `origin` token it was sent with.
   */
  wrote?(conn: IrcConnection, target: string, origin: string | undefined): void;
  /**
   * A raw line of the web client's was just written to the server (`send`'s `asked`): a line it
   * returns is written right after it.
   */
  asked?(conn: IrcConnection, line: string): IrcLine | undefined;
  /**
   * Whether IRC clients are attached to the connection through the listener: they answer CTCP
   * requests themselves (Parley answering too would give the asker one answer more than there
   * are clients), and a reply nothing handles is likely one of theirs.
   */
  clientsAttached?(conn: IrcConnection): boolean;
  /** The server gave the user the nick they asked for (`askNick`): it is the one wanted now. */
  nickTaken?(conn: IrcConnection, nick: string): void;
}

/** What the inbound handlers of one client give the connection (irc/chat/inbound/). */
export interface InboundLines extends LineSink {
  /**
   * A channel's members as this client has seen them (irc/chat/presence.ts), or undefined when
   * it does not know the whole list.
   */
  members(channel: string): Promise<{ nick: string; modes: string[] }[] | undefined>;
  /** Whether someone is in one of the user's channels, as far as this client has seen. */
  sees(nick: string): boolean;
  /**
   * The channels about to be joined again after a reconnect: until each one's NAMES has ended,
   * `members` waits for it (a client asking on reconnect must not get the list without the user).
   */
  rejoining(channels: string[]): void;
  /** The client was dropped: what its handlers share with other connections lets go of it. */
  released(): void;
}

/** Options a connection is built with. */
interface ConnectionOptions {
  listener: ConnectionListener;
  /** Burst and ms per line of the send queue (from the host's connection profile, if any). */
  burst?: number;
  interval?: number;
  version?: string;
  timing?: IrcTiming;
  /** Where the ident server learns which connection registered as whom. */
  ident?: IdentTable;
}

interface Pending {
  line: IrcLine;
  /** The sender's token (a PRIVMSG or NOTICE an attached client sent), told when written. */
  origin?: string;
  /** A raw line of the web client's, told when written (`asked`). */
  asked?: boolean;
  /** Told as the line is written (`send`'s `written`). */
  written?: () => IrcLine | undefined;
  resolve: () => void;
  reject: (err: Error) => void;
}

type Timer = ReturnType<typeof setTimeout>;

/** Errors of a send that cannot go out (not connected, stopped). */
export class SendError extends Error {}

/** Most automatic answers waiting to be sent at once. */
const MAX_ANSWERS = 10;
/** Most of Parley's own queries on their budget; more wait behind the flood control. */
const MAX_QUERIES = 10;
/**
 * The longest a WHOIS is waited for from when it is asked: past its answer's own wait, the time
 * the query may wait for its budget behind others (MAX_QUERIES, one a second).
 */
const WHOIS_QUEUED_MS = 30_000;

/** What a TLS client says when the server at the other end does not speak TLS. */
// Not a closed handshake ("unexpected eof"): a TLS server that throttles or bans closes so too.
const TLS_MISMATCH = /before secure TLS|wrong version number|packet length too long/i;

/** The refusals of a NICK once registered, naming the nick refused. */
const REGAIN_REFUSALS = new Set([
  ERR_ERRONEUSNICKNAME,
  ERR_NICKNAMEINUSE,
  ERR_BANNICKCHANGE,
  ERR_NICKCOLLISION,
  ERR_UNAVAILRESOURCE,
  ERR_NICKTOOFAST,
]);
/**
 * Most of the user's lines waiting behind flood control (about half an hour of them at the
 * production pace). Requests that send come in at once from several places (API calls, web
 * sockets, IRC clients); each waits for its line to be written, so nothing else bounds them.
 *
 * @internal test seam
 */
export const MAX_USER_LINES = 1000;

/** While other lines wait, one line in this many is a waiting client's query. */
const QUERY_SHARE = 5;

const PERMANENT_ERROR = /k-?lined|g-?lined|z-?lined|\bbanned\b|akill|password/i;

/** One live IRC connection. */
export class IrcConnection {
  state: ConnectionState = "disconnected";
  /** Shown as the Connection's `info`: nick, server, reason of the last disconnect... */
  info: Record<string, unknown> = {};
  /** The current nick on the server ("" when not registered). */
  nick = "";
  /** The nick the user wants; regained when it frees up. */
  wantedNick: string;
  /** The nick the user last asked for while connected, until the server gives it. */
  #askedNick?: string;
  /** The nick Parley's regain last asked for, until the server answers. */
  #regainAsked?: string;
  /** The server's refusals of a regain: Parley's own question, no one else's news. */
  #regainRefusals = new WeakSet<Message>();
  client: IrcClient | undefined;
  url: IrcUrl;
  /** The server conversation already says that the conversation cap was reached. */
  conversationCapNoticed = false;
  /**
   * The network's services (its host profile's `service_accounts`, IRC-lowercased), set at each
   * connect: what they say goes to the server's conversation (irc/chat/record.ts).
   */
  serviceAccounts: ReadonlySet<string> = new Set();
  /**
   * The server's 001 greeting, kept until the manager has announced "connected": Convos shows
   * the state, then "Connected to", then the greeting (irc/engine/manager.ts #publishState).
   */
  welcome?: { text: string; ts: number };
  /**
   * The server as its lines show it (ISUPPORT, capabilities, channels, MOTD): the one copy the
   * engine, the chat handlers and the bouncer read, fed each line once as the socket hands it over.
   */
  readonly upstream = new UpstreamState();
  /** The inbound handlers of the current client. */
  #inbound: InboundLines | undefined;
  #timing: IrcTiming;
  #listener: ConnectionListener;
  #bucket: TokenBucket;
  /** The user's lines waiting for the token bucket. */
  #userLines: Pending[] = [];
  /** Lines that wait behind the user's own (CTCP answers); bounded. */
  #answers: Pending[] = [];
  /** Queries a client asks on its own (a channel's modes): ahead of the queue, on their own budget. */
  #queries: Pending[] = [];
  /**
   * Queries of attached IRC clients (a client's sync of every channel after it attaches: a WHO
   * and a MODE each): behind the user's lines and the automatic answers, so that what the user
   * says does not wait minutes behind them for the flood control.
   */
  #clientQueries: Pending[] = [];
  /** Other lines written since a client's query last was, while one waited. */
  #passedQueries = 0;
  #queryBucket: TokenBucket;
  #ctcpBucket: TokenBucket;
  #pumpTimer: Timer | undefined;
  /** When the pending pump timer fires (ms since the epoch). */
  #pumpAt = 0;
  #retryTimer: Timer | undefined;
  #stableTimer: Timer | undefined;
  #registerTimer: Timer | undefined;
  #regainTimer: Timer | undefined;
  /** Whether NAMESX was asked for on this connection to the server. */
  #namesx = false;
  #attempt = 0;
  #stopping = false;
  #permanent: string | undefined;
  #closed: (() => void) | undefined;
  #version: string;
  #ident?: IdentTable;

  constructor(public record: ConnectionRecord, opts: ConnectionOptions) {
    this.#listener = opts.listener;
    this.#timing = opts.timing ?? DEFAULT_TIMING;
    this.#bucket = new TokenBucket(
      opts.burst ?? this.#timing.sendBurst,
      opts.interval ?? this.#timing.sendInterval,
    );
    this.#version = opts.version ?? "Parley";
    this.#ident = opts.ident;
    this.#ctcpBucket = new TokenBucket(this.#timing.ctcpBurst, this.#timing.ctcpInterval);
    this.#queryBucket = new TokenBucket(this.#timing.queryBurst, this.#timing.queryInterval);
    this.url = parseIrcUrl(record.url);
    this.wantedNick = record.nick || this.url.nick;
  }

  /** Takes a fresh copy of the stored connection (URL, commands, nick); used from the next connect. */
  setRecord(record: ConnectionRecord): void {
    this.record = record;
    this.url = parseIrcUrl(record.url);
    this.wantedNick = record.nick || this.url.nick;
    this.#forgetOtherServer();
  }

  /**
   * When the URL names another server than the one `info` describes, forgets what that one told
   * (nick, server, network...): a failed connect to the new one must not show the old one's.
   */
  #forgetOtherServer(): void {
    const { host, port } = this.info;
    if (host === undefined || (host === this.url.host && port === this.url.port)) return;
    this.info = { reason: this.info.reason };
  }

  /** The API's connection_id. */
  get id(): string {
    return this.record.connectionId;
  }

  /** The user the connection belongs to. */
  get userId(): number {
    return this.record.userId;
  }

  /** The server's casemapping (rfc1459 unless it says otherwise). */
  get caseMapping(): CaseMapping {
    return this.upstream.casemapping;
  }

  /** The conversation_id of a name: always rfc1459-casefolded, whatever the server's mapping. */
  conversationId(name: string): string {
    return ircLower(name);
  }

  /** True when the two names are the same nick or channel on this server. */
  same(a: string, b: string): boolean {
    return ircLower(a, this.caseMapping) === ircLower(b, this.caseMapping);
  }

  /** True when `name` is a channel on this server. */
  isChannel(name: string): boolean {
    return isChannel(name, this.upstream.chantypes);
  }

  /** True when `nick` is the user's current nick. */
  isMe(nick: string | undefined): boolean {
    return !!nick && !!this.nick && this.same(nick, this.nick);
  }

  #setState(state: ConnectionState, info: Record<string, unknown> = {}): void {
    this.state = state;
    this.info = { ...this.info, ...info };
    this.#listener.changed(this);
  }

  /** Marks the connection as waiting for its turn to connect to its host (state `queued`). */
  awaitTurn(): void {
    this.#stopping = false;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (this.state !== "queued") this.#setState("queued");
  }

  /**
   * Opens the socket now (the manager calls this when the host's turn comes). Unless
   * `allowPrivate`, the server's address must be public (checked after DNS resolution).
   */
  connect(
    { allowPrivate = true, certificate, webirc }: {
      allowPrivate?: boolean;
      /** The client certificate and key to present on TLS (irc/certificate.ts). */
      certificate?: { cert: string; key: string };
      /** The gateway's WEBIRC, when the host's profile has a password (irc/webirc.ts). */
      webirc?: Webirc;
    } = {},
  ): void {
    this.#stopping = false;
    this.#permanent = undefined;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#dropClient();
    this.url = parseIrcUrl(this.record.url);
    this.wantedNick = this.record.nick || this.url.nick;
    this.#forgetOtherServer();
    this.#namesx = false;
    const client = new IrcClient();
    this.client = client;
    this.#regainAsked = undefined;
    this.upstream.restart();
    const inbound = this.#inbound = this.#listener.attach(this, client);
    this.#bindLifecycle(client);
    this.#setState("connecting", { reason: undefined, host: this.url.host, port: this.url.port });
    log.info("irc connecting", { connection: this.id, uid: this.userId, host: this.url.host });
    this.#registerTimer = setTimeout(() => {
      if (this.client === client && this.state === "connecting") {
        // A TLS handshake a plain port never answers (it takes the hello for a line) hangs here.
        this.info.reason = this.url.tls && !client.opened
          ? this.#explained("The TLS handshake did not finish", false)
          : "Registration timed out.";
        client.end();
      }
    }, this.#timing.registerTimeout);
    // The socket's lines go to this client's handlers, read once (irc/socket/transport.ts); the
    // connection's state sees each first, so every reader after it finds it up to date.
    const upstream = this.upstream;
    const lines: LineSink = {
      take: (m) => {
        if (this.client !== client) return false;
        upstream.see(m);
        this.#sees(m);
        return inbound.take(m);
      },
      room: (max) => inbound.room(max),
    };
    const u = this.url;
    const registration = this.#registration();
    const ident = this.#ident;
    const socket: SocketSettings = {
      cert: certificate && { cert: certificate.cert, key: certificate.key },
      address: allowPrivate ? undefined : (host: string) => publicAddress(host),
      // After 90 s of silence the socket thread pings the server (one that talks, or pings us, is
      // not asked): a ping every minute from here would cross to the socket thread and back for
      // every connection, most of the idle CPU of thousands of them. A healthy server answers
      // well within the 150 s of silence after which the transport drops it.
      keepalive: 90,
      idleTimeout: 150,
      queueFull: (n) =>
        log.warn("irc read queue full; reading paused until it is processed", {
          connection: this.id,
          uid: this.userId,
          lines: n,
        }),
      lines,
      connected: ident &&
        ((address, local, remote) => ident.hold(address, local, remote, registration.username)),
    };
    client.connect({
      target: { host: u.host, port: u.port, tls: u.tls, rejectUnauthorized: u.tlsVerify },
      registration: { ...registration, ...(webirc ? { webirc } : {}) },
      socket,
      capEnabled: (name) => upstream.capEnabled(name),
    });
  }

  /** How to register: the URL's nick, user, real name, and its password as SASL's or PASS. */
  #registration(): RegistrationOptions {
    const u = this.url;
    const reg: RegistrationOptions = {
      nick: this.wantedNick,
      username: u.username || u.user || this.wantedNick,
      gecos: u.realname || "Parley user",
    };
    if (u.sasl === "plain") {
      reg.sasl = { mechanism: "PLAIN", account: u.user || this.wantedNick, password: u.password };
    } else {
      if (u.sasl === "external") reg.sasl = { mechanism: "EXTERNAL" };
      if (u.password) reg.password = u.password;
    }
    return reg;
  }

  #bindLifecycle(client: IrcClient): void {
    const mine = () => this.client === client;
    client.on("registered", (ev) => {
      if (!mine()) return;
      clearTimeout(this.#registerTimer);
      // Let go of the spent timers: ~150 bytes each, for every connection, for as long as it runs.
      this.#registerTimer = undefined;
      this.nick = ev.nick;
      this.#setState("connected", {
        nick: ev.nick,
        server: this.upstream.server,
        reason: undefined,
      });
      log.info("irc connected", { connection: this.id, uid: this.userId, nick: ev.nick });
      // A connection that stays up this long has proven itself: start backoff from scratch.
      this.#stableTimer = setTimeout(() => {
        this.#attempt = 0;
        this.#stableTimer = undefined;
      }, this.#timing.stableAfter);
      this.#startRegain();
      this.#listener.registered(this);
    });
    client.on("nick in use", (ev) => {
      if (!mine() || this.state !== "connecting") return;
      // Still registering: try the nick with an underscore; regain the wanted one later.
      const next = `${String(ev.nick ?? this.wantedNick).slice(0, 28)}_`;
      client.raw(ircLine("NICK", next));
    });
    client.on("nick invalid", (ev) => {
      if (!mine() || this.state !== "connecting") return;
      client.raw(ircLine("NICK", `parley${Math.floor(Math.random() * 10000)}`));
      this.info.reason = `Nick ${ev.nick} is not valid: ${ev.reason}`;
    });
    client.on("irc error", (ev) => {
      if (!mine()) return;
      // Refusals of the connection itself count only while it registers: once connected, a 464
      // answers a command (OPER's wrong password) and the connection is still good.
      const registering = this.state !== "connected";
      if (ev.error === "password_mismatch") {
        if (registering) this.#permanent = "Bad password.";
      } else if (ev.error === "banned_from_network") {
        if (registering) this.#permanent = `Banned: ${ev.reason ?? "by the server"}`;
      } else if (ev.error === "irc") {
        const reason = String(ev.reason ?? "");
        if (PERMANENT_ERROR.test(reason) && !this.#stopping) this.#permanent ??= reason;
        this.info.reason = reason;
      }
    });
    client.on("sasl failed", (ev) => {
      if (!mine()) return;
      this.#permanent = `SASL authentication failed (${ev.reason}).`;
      client.end();
    });
    client.on("socket close", (err) => {
      if (mine()) this.#onClose(err);
    });
  }

  /**
   * What the engine itself reads of a line, as soon as it is read (before it is handled, so the
   * lines after it are read with the user's nick as it is then): the user's nick changes, the
   * wanted nick freed, and CTCP requests to answer.
   */
  #sees(m: Message): void {
    const { command } = m;
    if (command === "NICK") {
      const [nick, next] = [nickOf(m.prefix), m.params[0]];
      // A NICK without a new nick (a broken or hostile server) changes nothing.
      if (!nick || !next) return;
      if (this.isMe(nick)) {
        this.nick = next;
        if (this.#regainAsked !== undefined && this.same(next, this.#regainAsked)) {
          this.#regainAsked = undefined;
        }
        if (this.#askedNick !== undefined && this.same(next, this.#askedNick)) {
          this.#askedNick = undefined;
          this.wantedNick = next;
          this.#listener.nickTaken?.(this, next);
        }
        this.#setState(this.state, { nick: next });
      } else if (this.same(nick, this.wantedNick)) {
        this.#regain();
      }
    } else if (command === "QUIT") {
      if (this.same(nickOf(m.prefix), this.wantedNick)) this.#regain();
    } else if (command === "PRIVMSG") {
      const text = m.params[1] ?? "";
      if (text.charCodeAt(0) === 1 && isWholeCtcp(text)) this.#ctcp(m.prefix, text);
    } else if (command === RPL_ISUPPORT) {
      this.#serverOptions();
    } else if (REGAIN_REFUSALS.has(command) && this.#regainAsked !== undefined) {
      if (this.same(m.params[1] ?? "", this.#regainAsked)) {
        this.#regainAsked = undefined;
        this.#regainRefusals.add(m);
      }
    }
  }

  /**
   * Whether `m` is the server's refusal of Parley's own attempt to regain the wanted nick (still
   * in use, once a minute while someone holds it): neither the user's history nor their IRC
   * clients are told of each try.
   */
  refusesRegain(m: Message): boolean {
    return this.#regainRefusals.has(m);
  }

  /** A line of the server's ISUPPORT (005): its network's name, and NAMESX where it is needed. */
  #serverOptions(): void {
    const network = this.upstream.networkName;
    if (network && this.info.network !== network) this.#setState(this.state, { network });
    // Every member's modes in NAMES (otherwise each member's highest only, and an operator who is
    // also voiced shows as unvoiced once the operator mode goes): servers without the
    // multi-prefix capability list them all when asked.
    if (
      !this.#namesx && !this.upstream.capEnabled("multi-prefix") &&
      this.upstream.isupportHas("NAMESX")
    ) {
      this.#namesx = true;
      this.client?.raw(ircLine("PROTOCTL", "NAMESX"));
    }
  }

  /** Answers a CTCP request (not an ACTION), within its budget. */
  #ctcp(prefix: string, text: string): void {
    const nick = sourceOf(prefix).nick;
    if (!nick) return;
    const ctcp = ctcpParts(text);
    if (!ctcp || ctcp.type === "ACTION" || this.clientsAttached()) return;
    const { type } = ctcp;
    const answer = ctcpAnswer(type, ctcp.arg, this.#version);
    // Anyone can ask: past the budget requests go unanswered rather than flood the server.
    if (!answer || this.#ctcpBucket.take() > 0) return;
    this.send(ircLine("NOTICE", nick, ctcpWrap(answer)), { answer: true }).catch((err) => {
      log.debug("ctcp answer not sent", { connection: this.id, type, error: String(err) });
    });
  }

  #onClose(err: unknown): void {
    clearTimeout(this.#registerTimer);
    clearTimeout(this.#stableTimer);
    clearInterval(this.#regainTimer);
    this.#failQueue("The connection closed.");
    const wasConnected = this.state === "connected";
    this.nick = "";
    this.#dropClient();
    const done = this.#closed;
    this.#closed = undefined;
    if (err instanceof TransportRefusal) {
      // Parley's own refusal (private address, over-long line) says more than any IRC error.
      this.info.reason = err.message;
      if (err.permanent) this.#permanent = err.message;
    }
    if (this.#stopping) {
      this.#setState("disconnected", { reason: this.info.reason ?? "Disconnected." });
      done?.();
      return;
    }
    const reason = this.#permanent ??
      (this.info.reason as string | undefined) ??
      (err instanceof Error
        ? this.#explained(err.message, wasConnected)
        : wasConnected
        ? "Connection lost."
        : "Could not connect.");
    if (this.#permanent) {
      log.warn("irc refused", { connection: this.id, uid: this.userId, reason });
      this.#setState("disconnected", { reason });
      return;
    }
    const delay = backoffDelay(this.#attempt++, this.#timing);
    // Not asked for: a failure the operator may need to see, with the retry it brings.
    log.warn(wasConnected ? "irc disconnected" : "irc connect failed", {
      connection: this.id,
      uid: this.userId,
      reason,
      retry_ms: delay,
    });
    this.#setState("disconnected", { reason, retry_in_ms: delay });
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.info.retry_in_ms = undefined;
      this.#listener.retry(this);
    }, delay);
  }

  /**
   * A socket error as the user reads it: a TLS handshake that a server without TLS on that port
   * ends (a plain port with `tls` on: BOUNCER ADDNETWORK's default) says what to change.
   */
  #explained(message: string, wasConnected: boolean): string {
    if (wasConnected || !this.url.tls) return message;
    if (!TLS_MISMATCH.test(message) && !message.startsWith("The TLS handshake")) return message;
    return `${message}: the server may not speak TLS on port ${this.url.port} ` +
      "(plain IRC is usually port 6667, with tls=0 in the URL)";
  }

  #dropClient(): void {
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    this.#inbound?.released();
    this.#inbound = undefined;
    client.end();
  }

  /**
   * Disconnects on purpose: QUIT with `message`, then close; no reconnect. Resolves when the
   * socket is closed (or after the quit timeout).
   */
  stop(message = "Bye."): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const client = this.client;
    if (!client) {
      if (this.state !== "disconnected") {
        this.#setState("disconnected", { reason: "Disconnected." });
      }
      return Promise.resolve();
    }
    this.#setState("disconnecting", { reason: message });
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        if (this.client === client) this.#onClose(undefined);
        resolve();
      }, this.#timing.quitTimeout);
      this.#closed = () => {
        clearTimeout(timer);
        resolve();
      };
      try {
        client.quit(message);
      } catch {
        this.#onClose(undefined);
      }
    });
  }

  /** Ends every timer; used when the connection is deleted. */
  dispose(): void {
    this.#stopping = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#pumpTimer);
    this.#dropClient();
    this.#listener.gone(this);
  }

  /**
   * A channel's members as this connection has seen them, or undefined when it does not know the
   * whole list (or has no client).
   */
  members(channel: string): Promise<{ nick: string; modes: string[] }[] | undefined> {
    return this.#inbound?.members(channel) ?? Promise.resolve(undefined);
  }

  /** Whether IRC clients are attached to the connection through the listener. */
  clientsAttached(): boolean {
    return this.#listener.clientsAttached?.(this) ?? false;
  }

  /** Whether someone shares a channel with the user, as far as this connection has seen. */
  sees(nick: string): boolean {
    return this.#inbound?.sees(nick) ?? false;
  }

  /**
   * Asks the server for another nick. It becomes the wanted nick (the one regained and used at
   * the next connect) only once the server gives it: a nick refused (433, in use) must not be
   * retried every minute until it is taken from whoever holds it.
   */
  askNick(nick: string): Promise<void> {
    this.#askedNick = nick;
    // The user's own ask: its refusal is theirs to see, even of the nick a regain tried.
    this.#regainAsked = undefined;
    return this.send(ircLine("NICK", nick));
  }

  /** The channels about to be joined again after a reconnect (see InboundLines.rejoining). */
  rejoining(channels: string[]): void {
    this.#inbound?.rejoining(channels);
  }

  #startRegain(): void {
    clearInterval(this.#regainTimer);
    this.#regainTimer = setInterval(() => {
      if (this.state === "connected" && this.nick && !this.same(this.nick, this.wantedNick)) {
        this.#regain();
      }
    }, this.#timing.nickRegainInterval);
  }

  #regain(): void {
    if (this.state !== "connected" || !this.wantedNick || this.same(this.nick, this.wantedNick)) {
      return;
    }
    this.#regainAsked = this.wantedNick;
    this.client?.raw(ircLine("NICK", this.wantedNick));
  }

  /**
   * Sends one line behind the token bucket; resolves when it is written. An `answer` (an
   * automatic answer) goes out only when none of the user's lines are waiting; a `query` (what a
   * client asks on its own when a channel opens, such as its modes) goes ahead of the queue on a
   * small budget of its own, so it does not wait behind flood control for the user's lines; a
   * `background` line (an attached IRC client's query) goes after all of them.
   * `origin` is the sender's token, told with a chat line when it is written (`wrote`).
   */
  send(
    line: IrcLine,
    { answer = false, query = false, background = false, origin, asked = false, written }: {
      answer?: boolean;
      query?: boolean;
      /** An attached IRC client's query: after everything else (`#clientQueries`). */
      background?: boolean;
      origin?: string;
      /** A raw line of the web client's: its answers are the web's (told when written). */
      asked?: boolean;
      /**
       * Told as the line is written, before any other line: a line it returns (a PING that ends
       * the answer of a command answered without an end) is written right after it, past the
       * flood control, so that nothing another sender wrote comes between.
       */
      written?: () => IrcLine | undefined;
    } = {},
  ): Promise<void> {
    if (this.state !== "connected" || !this.client) {
      return Promise.reject(new SendError(`${this.id} is not connected.`));
    }
    if (LINE_BREAKING.test(line)) {
      // irc/protocol/message.ts refuses these; reaching this is a bug, and writing it an injection.
      log.warn("irc line refused", { connection: this.id, reason: "CR, LF or NUL in a line" });
      return Promise.reject(new SendError("A line with CR, LF or NUL cannot be sent."));
    }
    if (answer && this.#answers.length >= MAX_ANSWERS) {
      return Promise.reject(new SendError("Too many automatic answers waiting."));
    }
    // Past its small budget's queue, a query of Parley's own (a join of 100 channels asks 100
    // channels' modes) waits with the clients' queries, behind the flood control: learned a
    // little later, none dropped, and never more lines a second than the server takes.
    const overflow = query && this.#queries.length >= MAX_QUERIES;
    const queue = query && !overflow
      ? this.#queries
      : answer
      ? this.#answers
      : background || overflow
      ? this.#clientQueries
      : this.#userLines;
    if (
      (queue === this.#userLines || queue === this.#clientQueries) && queue.length >= MAX_USER_LINES
    ) {
      return Promise.reject(
        new SendError(
          `${MAX_USER_LINES} lines are waiting to be sent already: try again once they are out.`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      queue.push({
        line,
        origin,
        ...(asked ? { asked } : {}),
        ...(written ? { written } : {}),
        resolve,
        reject,
      });
      this.#pump();
    });
  }

  /** Lines waiting for the token bucket (all but those on the queries' budget), for views. */
  get queued(): number {
    return this.#userLines.length + this.#answers.length + this.#clientQueries.length;
  }

  #pump(): void {
    while (this.#queries.length) {
      const wait = this.#queryBucket.take();
      if (wait > 0) {
        this.#pumpIn(wait);
        break;
      }
      this.#write(this.#queries.shift()!);
    }
    for (;;) {
      // Clients' queries go last, but get every QUERY_SHARE-th line while others keep waiting:
      // a connection that never pauses does not hold them back for ever.
      const due = this.#clientQueries.length > 0 && this.#passedQueries >= QUERY_SHARE - 1;
      const next = due
        ? this.#clientQueries
        : this.#userLines.length
        ? this.#userLines
        : this.#answers.length
        ? this.#answers
        : this.#clientQueries;
      if (!next.length) return;
      const wait = this.#bucket.take();
      if (wait > 0) {
        this.#pumpIn(wait);
        return;
      }
      if (next === this.#clientQueries) this.#passedQueries = 0;
      else if (this.#clientQueries.length) this.#passedQueries++;
      this.#write(next.shift()!);
    }
  }

  /** Pumps again in `ms` (or sooner, when a pump is due sooner already). */
  #pumpIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.#pumpTimer !== undefined && this.#pumpAt <= at) return;
    clearTimeout(this.#pumpTimer);
    this.#pumpAt = at;
    this.#pumpTimer = setTimeout(() => {
      this.#pumpTimer = undefined;
      this.#pump();
    }, ms);
  }

  #write(item: Pending): void {
    if (!this.client) {
      item.reject(new SendError(`${this.id} is not connected.`));
      return;
    }
    if (this.#listener.wrote) this.#wroteChat(item);
    this.client.raw(item.line);
    // What the listener or the sender writes in turn (a PING behind a HELP) goes right after it.
    const next = item.asked ? this.#listener.asked?.(this, item.line) : item.written?.();
    if (next) this.client.raw(next);
    item.resolve();
  }

  /** Tells the listener of a PRIVMSG or NOTICE written, once per target. */
  #wroteChat(item: Pending): void {
    const head = readHead(item.line);
    if (!head) return;
    const command = head.line.slice(head.command, head.commandEnd).toUpperCase();
    if (command !== "PRIVMSG" && command !== "NOTICE") return;
    const [targets] = paramsOf(head);
    for (const target of targets?.split(",") ?? []) {
      if (target) this.#listener.wrote!(this, target, item.origin);
    }
  }

  #failQueue(reason: string): void {
    clearTimeout(this.#pumpTimer);
    this.#pumpTimer = undefined;
    const all = [
      ...this.#userLines.splice(0),
      ...this.#answers.splice(0),
      ...this.#queries.splice(0),
      ...this.#clientQueries.splice(0),
    ];
    for (const item of all) item.reject(new SendError(reason));
  }

  /** Changes how many lines may go out at once (from the host's connection profile). */
  setBurst(burst: number): void {
    if (burst !== this.#bucket.burst) {
      this.#bucket = new TokenBucket(burst, this.#bucket.interval);
    }
  }

  /** The server's line limit (ISUPPORT LINELEN, else 512). */
  get lineLimit(): number {
    const n = this.upstream.linelen;
    return n !== undefined && n >= 512 ? n : LINE_LIMIT;
  }

  /**
   * Sends a PRIVMSG or NOTICE (or an ACTION when `action`), split into lines that fit, each with
   * the client-only `tags` given (their bytes do not count against the text's) and the sender's
   * `origin` token (`send`); resolves with the lines as sent.
   */
  async say(
    target: string,
    text: string,
    kind: "privmsg" | "notice" | "action" = "privmsg",
    tags?: Record<string, string>,
    origin?: string,
  ): Promise<string[]> {
    const command = kind === "notice" ? "NOTICE" : "PRIVMSG";
    let budget = textBudget(command, target, this.nick || this.wantedNick, this.lineLimit);
    if (kind === "action") budget -= ACTION_OVERHEAD;
    const parts = splitText(text, budget);
    for (const part of parts) {
      const body = kind === "action" ? actionWrap(part) : part;
      await this.send(
        tags
          ? formatMessage({ command, params: [target, body], tags: new Map(Object.entries(tags)) })
          : ircLine(command, target, body),
        { origin },
      );
    }
    return parts;
  }

  /** True when the server echoes our own messages back (IRCv3 echo-message). */
  get echoes(): boolean {
    return !!this.client && this.upstream.capEnabled("echo-message");
  }

  /**
   * Sends WHOIS and resolves with the reply, or undefined when the server has not answered
   * `timeoutMs` after the line was written (the wait for the flood control does not count; at
   * most WHOIS_QUEUED_MS in all).
   */
  whois(nick: string, timeoutMs = 5000): Promise<WhoisReply | undefined> {
    // The answer is told by irc/chat/inbound/answers.ts when its 318 is read.
    return this.#ask(
      "whois",
      (ev) => this.same(String(ev.nick ?? ""), nick),
      ircLine("WHOIS", nick),
      timeoutMs,
      { query: true },
    );
  }

  /**
   * Sends a CTCP request (`\x01TYPE arg\x01`) to `nick`, as one of the user's lines, and resolves
   * with its answer's text, or undefined when none came `ctcpWait` ms after the line was written.
   */
  async ctcp(nick: string, type: string, arg: string): Promise<string | undefined> {
    const answer = await this.#ask(
      "ctcp reply",
      (ev) => ev.type === type && this.same(ev.nick, nick),
      ircLine("PRIVMSG", nick, ctcpWrap(type, arg)),
      this.#timing.ctcpWait,
      // The web client's question: its answer (and a refusal) reach no IRC client attached.
      { asked: true },
    );
    return answer?.text;
  }

  /**
   * Writes `line` and resolves with the first `event` that passes `test`, or undefined when none
   * came `timeoutMs` after the line was written (the wait for the flood control does not count;
   * at most WHOIS_QUEUED_MS in all), or could not be sent.
   */
  #ask<K extends "whois" | "ctcp reply">(
    event: K,
    test: (ev: IrcEvents[K]) => boolean,
    line: IrcLine,
    timeoutMs: number,
    how: { query?: boolean; asked?: boolean },
  ): Promise<IrcEvents[K] | undefined> {
    const client = this.client;
    if (!client || this.state !== "connected") {
      return Promise.reject(new SendError(`${this.id} is not connected.`));
    }
    return new Promise((resolve) => {
      let timer = setTimeout(() => done(undefined), WHOIS_QUEUED_MS);
      let over = false;
      const done = (ev: IrcEvents[K] | undefined) => {
        over = true;
        clearTimeout(timer);
        client.off(event, told);
        resolve(ev);
      };
      const told = (ev: IrcEvents[K]) => test(ev) && done(ev);
      client.on(event, told);
      this.send(line, how).then(() => {
        if (over) return;
        clearTimeout(timer);
        timer = setTimeout(() => done(undefined), timeoutMs);
      }, () => done(undefined));
    });
  }
}
