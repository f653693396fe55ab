/**
 * One live stream per connection: every line the server sends reaches every attached client (as
 * each one's capabilities allow), in the server's order, once the connection has handled it (the
 * relay is the connections' outlet, irc/engine/outlet.ts): a line Parley stored carries its row's
 * msgid and time, the ones CHATHISTORY gives it. The user's own lines that the server does not
 * echo (sent from the web client or another attached client) come from the bus once stored.
 * Replies to a client's own command go to that client only (pending_replies.ts).
 */
import type { EventBus } from "../lib/bus.ts";
import { log } from "../lib/log.ts";
import { batchId } from "./batch_id.ts";
import type { BusMessageEvent, MessageEvent } from "../protocol/events.ts";
import { parseMicros } from "../protocol/time.ts";
import { ircLower } from "../lib/casefold.ts";
import type { IrcConnection } from "../irc/engine/connection.ts";
import type { LineOut, Outlet, Produced } from "../irc/engine/outlet.ts";
import { Caps, extendedMonitor, noImplicitNames } from "./caps.ts";
import { forClient } from "./filter.ts";
import { passingMsgid } from "../lib/msgid.ts";
import { SERVER_NAME } from "./burst.ts";
import { SentOrder } from "./sent_order.ts";
import { ReplyIds } from "./reply_ids.ts";
import { MonitorLists, targetLines } from "./monitor.ts";
import { changeDetach, DetachedChannels, relayNotice } from "./detached.ts";
import type { DetachState } from "../protocol/detach.ts";
import type { Store } from "../store/mod.ts";
import {
  NOTICE_ANSWERED,
  type Pending,
  PendingReplies,
  replySpec,
  type Routed,
} from "./pending_replies.ts";
import { UpstreamState } from "../irc/upstream_state.ts";
import { actionWrap, ctcpParts, isAction, isCtcp } from "../irc/protocol/ctcp.ts";
import { CtcpAsks } from "./ctcp_asks.ts";
import {
  formatMessage,
  type IrcLine,
  ircLine,
  type IrcMessage,
  nickOf,
  parseMessage,
} from "../irc/protocol/message.ts";
import {
  ERR_BADCHANMASK,
  ERR_BADCHANNELKEY,
  ERR_BANNEDFROMCHAN,
  ERR_CANNOTSENDTOCHAN,
  ERR_CHANNELISFULL,
  ERR_INVITEONLYCHAN,
  ERR_LINKCHANNEL,
  ERR_MONLISTFULL,
  ERR_NOCHANMODES,
  ERR_NOMOTD,
  ERR_NOSUCHCHANNEL,
  ERR_NOSUCHNICK,
  ERR_NOTONCHANNEL,
  ERR_SECUREONLYCHAN,
  ERR_TOOMANYCHANNELS,
  ERR_UNAVAILRESOURCE,
  RPL_BANLIST,
  RPL_CHANNELMODEIS,
  RPL_CREATED,
  RPL_CREATIONTIME,
  RPL_ENDOFBANLIST,
  RPL_ENDOFEXCEPTLIST,
  RPL_ENDOFINVITELIST,
  RPL_ENDOFMOTD,
  RPL_ENDOFNAMES,
  RPL_ENDOFWHO,
  RPL_ENDOFWHOIS,
  RPL_ENDOFWHOWAS,
  RPL_EXCEPTLIST,
  RPL_INVITELIST,
  RPL_ISUPPORT,
  RPL_LIST,
  RPL_LISTEND,
  RPL_LISTSTART,
  RPL_MONOFFLINE,
  RPL_MONONLINE,
  RPL_MOTD,
  RPL_MOTDSTART,
  RPL_MYINFO,
  RPL_NAMREPLY,
  RPL_UMODEIS,
  RPL_WELCOME,
  RPL_WHOREPLY,
  RPL_WHOSPCRPL,
  RPL_WHOWASUSER,
  RPL_YOURHOST,
} from "../irc/protocol/numerics.ts";
import { WHOIS_LINES } from "../irc/protocol/whois.ts";

/**
 * An attached client, as the relay sees it.
 *
 * @internal test seam
 */
export interface Downstream {
  caps: Caps;
  /** Queues one line (without CR LF) for the client; `msgid` names a stored message's line. */
  write(line: string, msgid?: string): void;
  /** Sends ERROR and closes (its connection is gone). */
  quit(reason: string): void;
  /** The MARKREAD line of a channel the user just joined (draft/read-marker), if it takes them. */
  readMarker?(channel: string): Promise<string | undefined>;
  /** The lines of a channel as if just joined (JOIN, topic, names, read marker): a reattach. */
  channelBurst?(channel: string): Promise<string[]>;
  /** The server registered, or changed its capabilities: what the client is offered follows. */
  followServer?(server: ReadonlySet<string>): void;
}

/** Lines of the server's own that no client is sent: registration, SASL, pings. */
const NEVER = new Set([
  "PING",
  "PONG",
  "CAP",
  "AUTHENTICATE",
  "ERROR",
  RPL_WELCOME,
  RPL_YOURHOST,
  RPL_CREATED,
  RPL_MYINFO,
  RPL_ISUPPORT,
  RPL_MOTDSTART,
  RPL_MOTD,
  RPL_ENDOFMOTD,
  ERR_NOMOTD,
  ...Array.from({ length: 17 }, (_, i) => String(250 + i)),
  ...Array.from({ length: 9 }, (_, i) => String(900 + i)),
]);

/**
 * A client's JOIN or PART of a channel, waiting for the server's answer: a refusal is the
 * client's alone; the answer carries the client's label when it gave one.
 */
interface AwaitedJoinOrPart {
  client: Downstream;
  command: "JOIN" | "PART";
  /** Casefolded. */
  channel: string;
  label?: string;
}

/** The numerics that refuse a JOIN or a PART, naming the channel (their second parameter). */
const REFUSALS: Record<AwaitedJoinOrPart["command"], ReadonlySet<string>> = {
  JOIN: new Set([
    ERR_NOSUCHCHANNEL,
    ERR_TOOMANYCHANNELS,
    ERR_UNAVAILRESOURCE,
    ERR_CHANNELISFULL,
    ERR_INVITEONLYCHAN,
    ERR_BANNEDFROMCHAN,
    ERR_BADCHANNELKEY,
    ERR_BADCHANMASK,
    ERR_NOCHANMODES,
    ERR_SECUREONLYCHAN,
    // Forwarded: the server's JOIN of the other channel follows, everyone's news.
    ERR_LINKCHANNEL,
  ]),
  PART: new Set([ERR_NOSUCHCHANNEL, ERR_NOTONCHANNEL]),
};

/**
 * Numerics that only answer a query (WHOIS, WHOWAS, WHO, LIST, NAMES, MODE queries). When no
 * attached client asked, someone else did (the web client's /whois, or Parley's own WHO after a
 * join): no client gets them. NAMES after the user's own JOIN are the join's, and go to everyone.
 */
const QUERY_REPLIES = new Set([
  ...WHOIS_LINES,
  RPL_ENDOFWHOIS,
  ...[
    RPL_WHOWASUSER,
    RPL_ENDOFWHOWAS,
    RPL_WHOREPLY,
    RPL_WHOSPCRPL,
    RPL_ENDOFWHO,
    RPL_LISTSTART,
    RPL_LIST,
    RPL_LISTEND,
    RPL_NAMREPLY,
    RPL_ENDOFNAMES,
  ],
  ...[
    RPL_CHANNELMODEIS,
    RPL_CREATIONTIME,
    RPL_BANLIST,
    RPL_ENDOFBANLIST,
    RPL_EXCEPTLIST,
    RPL_ENDOFEXCEPTLIST,
    RPL_INVITELIST,
    RPL_ENDOFINVITELIST,
    RPL_UMODEIS,
  ],
]);

/**
 * A line a client sent and waits to see stored, to echo it (echo-message) with its label. Never
 * found by its text: by the label Parley sent it upstream with, by the server's order of its
 * echoes, or by the origin token its stored copy carries on the bus.
 */
interface PendingEcho {
  client: Downstream;
  conversation: string;
  label?: string;
  /** Its client-only tags, which the other clients see on it too. */
  tags?: Map<string, string>;
  /** Set by the hub: the origin token of its stored copy (a server that does not echo). */
  id?: string;
  /** Set by the hub: Parley's label on the line upstream (a server echoing it with its label). */
  upstreamLabel?: string;
  /** A first part of it was seen: the rest (a line split to fit) goes to its client unlabeled. */
  seen?: boolean;
}

/** A line a client sent that Parley does not store (TAGMSG), waiting for the server's echo. */
interface RawEcho {
  client: Downstream;
  command: string;
  /** Casefolded. */
  target: string;
  label?: string;
}

/** A line in the server's order, held behind a read marker being looked up; delivered when done. */
interface OrderItem {
  done: boolean;
  deliver?: () => void;
}

/** What extended-monitor tells of a watched person outside the user's channels. */
const MONITOR_NEWS = new Set(["AWAY", "ACCOUNT", "CHGHOST", "SETNAME"]);

/** Channel prefixes of a server that did not say (CHANTYPES). */
const DEFAULT_CHANTYPES = ["#", "&"];
/** Lines held in order at most; past that, nothing waits. */
const MAX_ORDER = 10_000;
const MAX_ECHOES = 256;
/** Clients' JOINs and PARTs waiting for the server's answer (per connection). */
const MAX_JOINS_AND_PARTS = 32;
/** Channels joined whose NAMES reply has not ended, at most (see `Hub.#join`). */
const MAX_JOINING = 100;
let upstreamLabels = 0;
let echoIds = 0;
let fenceTokens = 0;

/**
 * A client's command whose answer is server notices with no end of their own (ngircd's HELP): the
 * server's notices to the user are the client's until the PONG of the PING written after it.
 */
interface Fence {
  client: Downstream;
  token: string;
  /** Past this (ms), a PONG that never came holds nothing any longer. */
  deadline: number;
}
/** Fences waiting at once, at most, and how long one holds the server's notices. */
const MAX_FENCES = 16;
const FENCE_MS = 30_000;

/**
 * One connection's live stream and the clients attached to it: made when the first IRC client
 * attaches (or a channel's detachment changes, on the node that runs the connection), never for a
 * connection no client uses.
 */
export class Hub {
  readonly clients = new Set<Downstream>();
  conn?: IrcConnection;
  /** A state of its own only for a hub without a live connection (nothing feeds it). */
  #noState: UpstreamState | undefined;
  /**
   * The user's nick as of the line being relayed: the connection's state has seen the lines
   * still waiting in the connection's queue, this hub only those relayed so far.
   */
  #me: string | undefined;
  /** The stored connection's nick, for a connection that has not spoken since Parley started. */
  recordNick = "";
  #pending = new PendingReplies<Downstream>();
  /**
   * The web client as an asker (its `/quote`, its on-connect commands): its answers go to no IRC
   * client and are shown to the web, as they would be with none attached.
   */
  readonly #web: Downstream = { caps: new Caps(), write() {}, quit() {} };
  #echoes: PendingEcho[] = [];
  /** Commands answered by server notices, oldest first (`fence`). */
  #fences: Fence[] = [];
  /** Chat lines written whose echo is told by the server's order (`wrote`). */
  #sent = new SentOrder<PendingEcho>();
  #rawEchoes: RawEcho[] = [];
  /**
   * The server's msgid of stored lines and their own (the one clients see): replies and reactions
   * name the server's, and are told to clients with the line's own, and back.
   */
  readonly ids: ReplyIds;
  #joinsAndParts: AwaitedJoinOrPart[] = [];
  /** Channels the user just joined, whose NAMES reply is the join's (casefolded). */
  #joining = new Set<string>();
  /** Lines in the server's order held behind a read marker being looked up. */
  #order: OrderItem[] = [];
  /** The connection's detached channels and their options (detached.ts). */
  readonly detached = new DetachedChannels((channel) => this.onDetachChange(channel, true));
  /** Resolves once the detached channels are loaded from the store (set by the relay). */
  loaded: Promise<void> = Promise.resolve();
  /** Stores a detachment the hub decided (detach-after ran out, or a message reattaches). */
  onDetachChange: (channel: string, detached: boolean) => void = () => {};
  /** The nicks each client watches (MONITOR), asked of the server as one list. */
  readonly monitor = new MonitorLists<Downstream>();
  /** The server registered again: the watched nicks are asked again once it is ready. */
  #monitorAgain = false;
  /** CTCP requests waiting for their answer, by who sent them. */
  readonly #ctcpAsks = new CtcpAsks<Downstream>();

  constructor(
    readonly userId: number,
    readonly connectionId: string,
    /** Told when a client attaches (+1) or leaves (-1). */
    readonly onClients: (userId: number, change: number) => void = () => {},
    /** Where the ids of lines not relayed lately are looked up. */
    store?: Store,
  ) {
    this.ids = new ReplyIds(store);
  }

  /** Binds the hub to its live connection; the nick it follows starts from the connection's. */
  use(conn: IrcConnection | undefined): void {
    if (!conn || this.conn === conn) return;
    this.conn = conn;
    this.#me ??= conn.upstream.nick || undefined;
  }

  /** The connection's server as its lines show it (irc/upstream_state.ts), read, never fed. */
  get state(): UpstreamState {
    return this.conn?.upstream ?? (this.#noState ??= new UpstreamState());
  }

  /** The nick to show: the server's view, else the connection's. */
  get nick(): string {
    return this.#me || this.state.nick || this.conn?.nick || this.conn?.wantedNick ||
      this.recordNick || "*";
  }

  /** Whether a name is a channel on this server. */
  isChannel(name: string): boolean {
    const types = this.state.chantypes ?? DEFAULT_CHANTYPES;
    return !!name && types.includes(name[0]);
  }

  /**
   * The server's answer to a client's command goes to that client (pending_replies.ts): its wait
   * (`spec.answered` when an answer always comes, and carries the label; else only an error may,
   * and the caller acknowledges the label), "unanswered" when none is kept, "full" when too many
   * queries wait.
   */
  expect(
    client: Downstream,
    command: string,
    params: string[],
    label?: string,
  ): Pending<Downstream> | "unanswered" | "full" {
    const spec = replySpec(command, params, (n) => this.isChannel(n));
    // A server with labeled-response tells its answer to a query by a label of Parley's own. Only
    // a query's: a command that changes something is answered by a line every client must see.
    const upstreamLabel = spec.answered && this.state.caps.has("labeled-response") &&
        this.state.caps.has("batch")
      ? `pb${++upstreamLabels}`
      : undefined;
    const entry = this.#pending.add(
      client,
      command,
      params,
      spec,
      spec.answered ? label : undefined,
      upstreamLabel,
    );
    return entry ?? (spec.answered ? "full" : "unanswered");
  }

  /** The command was written to the server: its answer's time runs from now. */
  sentExpected(entry: Pending<Downstream>): void {
    this.#pending.written(entry);
  }

  /**
   * The command is being written to the server (`IrcConnection.send`'s `written`): its answer's
   * time runs from now, and the line to write right after it, if any, is returned (a fence).
   */
  writing(entry: Pending<Downstream>): IrcLine | undefined {
    this.sentExpected(entry);
    return entry.upstreamLabel ? undefined : this.#fenceBehind(entry.client, entry.command);
  }

  /**
   * How a command that waits for its answer is sent: `written`, the send's option, starts its
   * answer's time as it is written and gives the line to write behind it (a fence); `sent`, called
   * once the send resolved, does the same when the write was never told (a send routed to another
   * node carries no function). Nothing for a command that waits for nothing.
   */
  writeOf(
    wait: Pending<Downstream> | "unanswered" | "full",
  ): { written?: () => IrcLine | undefined; sent(): void } {
    if (typeof wait !== "object") return { sent: () => {} };
    let told = false;
    return {
      written: () => (told = true, this.writing(wait)),
      sent: () => {
        if (!told) this.sentExpected(wait);
      },
    };
  }

  /** The command was not sent after all: no answer will come. */
  forgetExpected(entry: Pending<Downstream>): void {
    this.#pending.remove(entry);
  }

  /** The line was not sent after all: no echo will come. */
  forgetEcho(e: PendingEcho): void {
    this.#echoes = this.#echoes.filter((x) => x !== e);
  }

  /**
   * A client's chat line is being sent: its copy (the server's echo, or the stored line when the
   * server does not echo) goes to it with its label, and only with echo-message. Sent with
   * `e.id` as its origin: without Parley's label, each of its lines takes its place in the
   * server's order as it is written (`wrote`).
   */
  awaitEcho(e: PendingEcho, unlabeled = false): PendingEcho {
    e.id = `pe${++echoIds}`;
    // A server with labeled-response echoes the line with Parley's label (unless it was sent
    // without one); else its echoes come in the order the lines were sent.
    if (!unlabeled && this.serverEchoes && this.state.caps.has("labeled-response")) {
      e.upstreamLabel = `pb${++upstreamLabels}`;
    }
    this.#echoes.push(e);
    if (this.#echoes.length > MAX_ECHOES) this.#echoes.shift();
    return e;
  }

  /**
   * The server refused a line of the user's (no echo will come in its place): the pending line
   * it answers is dropped, so a later echo is not taken for it. Told by Parley's label, the error
   * goes to that client alone, with its label when it has echo-message (else its label was
   * acknowledged once sent); else it goes on as before.
   */
  #refusedEcho(m: IrcMessage, upLabel: string | undefined): (() => void) | undefined {
    if (upLabel !== undefined) {
      const e = this.#echoes.find((e) => e.upstreamLabel === upLabel);
      if (!e) return undefined;
      this.forgetEcho(e);
      // A later part of a line split to fit: its first part already answered the label.
      const label = e.seen || !e.client.caps.has("echo-message") ? undefined : e.label;
      return () => {
        if (!this.clients.has(e.client)) return;
        const tags = new Map(m.tags);
        if (label) tags.set("label", label);
        this.#send(e.client, { ...m, tags });
      };
    }
    this.#sent.take(m.params[1] ?? "");
    return undefined;
  }

  /**
   * A PRIVMSG or NOTICE was written to the server (irc/engine/outlet.ts), by anyone: a server
   * that echoes without Parley's label echoes every one of them in this order, so each takes its
   * place, the web client's and Parley's own too, or a client's line would be told by the echo
   * of a line written before it. `origin` names the client's line it is a part of.
   */
  wrote(target: string, origin: string | undefined): void {
    if (!this.serverEchoes) return;
    const echo = origin === undefined ? undefined : this.#echoes.find((e) => e.id === origin);
    // Its echo carries Parley's label, and is told by it.
    if (echo?.upstreamLabel !== undefined) return;
    this.#sent.wrote(target, echo);
  }

  /**
   * `client`'s command is being written: one some servers answer with notices alone and no end
   * (HELP) gets a PING of Parley's right behind it (the line returned, written next with nothing
   * between), and the server's notices to the user are the client's until that PING's PONG (the
   * server answers in order). With too many waiting, its answer goes to every client, as the
   * server sent it.
   */
  #fenceBehind(client: Downstream, command: string): IrcLine | undefined {
    if (!NOTICE_ANSWERED.has(command) || this.#fences.length >= MAX_FENCES) return undefined;
    const token = `parley-fence-${++fenceTokens}`;
    this.#fences.push({ client, token, deadline: Date.now() + FENCE_MS });
    return ircLine("PING", token);
  }

  /** The client a server's notice to the user belongs to, while a fence waits (`#fenceBehind`). */
  #fenceOf(m: IrcMessage, me: string): Downstream | undefined {
    const now = Date.now();
    if (this.#fences[0].deadline <= now) {
      this.#fences = this.#fences.filter((f) => f.deadline > now);
    }
    if (m.command !== "NOTICE" || !m.prefix || m.prefix.includes("!")) return undefined;
    return ircLower(m.params[0] ?? "") === ircLower(me) ? this.#fences[0]?.client : undefined;
  }

  /** A PONG ends its fence, and any before it whose PONG did not come (the server's order). */
  #fenceEnded(token: string | undefined): void {
    const at = this.#fences.findIndex((f) => f.token === token);
    if (at >= 0) this.#fences.splice(0, at + 1);
  }

  /**
   * The web client's raw line was written to the server: its answers are the web's. Returns the
   * line to write right after it, if any (a fence).
   */
  asked(line: string): IrcLine | undefined {
    const m = parseMessage(line);
    if (!m) return undefined;
    if (m.command === "PRIVMSG") this.askedCtcp(this.#web, m.params[0] ?? "", m.params[1] ?? "");
    const spec = replySpec(m.command, m.params, (n) => this.isChannel(n));
    const entry = this.#pending.add(this.#web, m.command, m.params, spec);
    return entry ? this.writing(entry) : undefined;
  }

  /**
   * `client` sent `text` to `target`: a CTCP request to someone (not an ACTION, not to a
   * channel, whose members would each answer) makes its answer that client's alone.
   */
  askedCtcp(client: Downstream, target: string, text: string): void {
    const ctcp = ctcpParts(text);
    if (!ctcp || ctcp.type === "ACTION" || !target || this.isChannel(target)) return;
    this.#ctcpAsks.add(client, ircLower(target), ctcp.type);
  }

  /** Who asked for the CTCP answer `m` is (a NOTICE to the user), if anyone waits for it. */
  #ctcpAsker(m: IrcMessage, me: string): Downstream | undefined {
    if (m.command !== "NOTICE" || ircLower(m.params[0] ?? "") !== ircLower(me)) return undefined;
    const ctcp = ctcpParts(m.params[1] ?? "");
    const nick = nickOf(m.prefix);
    return ctcp && nick ? this.#ctcpAsks.take(ircLower(nick), ctcp.type) : undefined;
  }

  /**
   * Lines written before the hub was made (the web client's, Parley's own) whose echoes have not
   * come yet: each keeps its place before the clients' lines.
   */
  seedSent(earlier: SentOrder<PendingEcho>): void {
    this.#sent.takeOver(earlier);
  }

  /** Whether the server echoes the user's own lines (echo-message). */
  get serverEchoes(): boolean {
    return this.conn ? this.conn.echoes : this.state.caps.has("echo-message");
  }

  /**
   * The pending line a server's echo of the user's own line is: the one Parley labeled so, else
   * the one of the first line written unlabeled to that target (the server echoes in order),
   * none when that line was not a client's.
   */
  #echoOf(m: IrcMessage, upLabel: string | undefined): PendingEcho | undefined {
    if (upLabel !== undefined) {
      const e = this.#echoes.find((e) => e.upstreamLabel === upLabel);
      if (e && !e.seen) e.seen = true;
      else if (e) return { ...e, label: undefined };
      return e;
    }
    const e = this.#sent.take(m.params[0] ?? "")?.echo;
    // A later part of a line split to fit: its first part carried the label.
    if (e?.seen) return { ...e, label: undefined };
    if (e) e.seen = true;
    return e;
  }

  /**
   * A client's JOIN or PART of a channel: a refusal goes to it alone, the answer with its label
   * when it has one. False when too many wait: an unlabeled one, which a server may never answer
   * (a JOIN it ignores), gives way first; a labeled client then gets a plain ACK.
   */
  expectJoinOrPart(a: AwaitedJoinOrPart): boolean {
    if (this.#joinsAndParts.length >= MAX_JOINS_AND_PARTS) {
      const at = this.#joinsAndParts.findIndex((x) => x.label === undefined);
      if (at < 0) return false;
      this.#joinsAndParts.splice(at, 1);
    }
    this.#joinsAndParts.push(a);
    return true;
  }

  /** The client's JOIN or PART was not sent after all: no answer will come. */
  forgetJoinOrPart(client: Downstream, command: string, label: string | undefined): void {
    this.#joinsAndParts = this.#joinsAndParts.filter((a) =>
      a.client !== client || a.command !== command || a.label !== label
    );
  }

  /** A client joins the stream (after its burst). */
  attach(client: Downstream): void {
    if (this.clients.has(client)) return;
    this.clients.add(client);
    this.onClients(this.userId, 1);
  }

  /** A client left: its queries' replies go nowhere, its echoes and labels to nobody. */
  detach(client: Downstream): void {
    if (this.clients.delete(client)) this.onClients(this.userId, -1);
    this.watch("-", this.monitor.clear(client));
    this.#pending.replace(client, NOBODY);
    this.#echoes = this.#echoes.filter((e) => e.client !== client);
    // Its written lines keep their place in the order: their echoes still come, to everyone.
    this.#sent.forget((e) => e.client === client);
    this.#rawEchoes = this.#rawEchoes.filter((e) => e.client !== client);
    this.#joinsAndParts = this.#joinsAndParts.filter((a) => a.client !== client);
  }

  /** Asks the server to watch nicks for the clients, or to forget them (MONITOR + or -). */
  watch(sign: "+" | "-", nicks: string[]): void {
    if (!nicks.length || !this.conn) return;
    // Asked again after the next registration, where a reconnect is what failed it.
    const lost = (err: unknown) => log.debug("bouncer: MONITOR not sent", { error: String(err) });
    for (const t of targetLines(nicks)) {
      try {
        // With the clients' queries, behind what anyone says.
        this.conn.send(ircLine("MONITOR", sign, t), { background: true }).catch(lost);
      } catch (err) {
        // A nick no line can carry.
        lost(err);
      }
    }
  }

  /**
   * The server's 730 or 731 (statuses) or 734 (not added) while it watches for the clients: each
   * client is told of the nicks on its own list only.
   */
  #monitorReply(m: IrcMessage): () => void {
    const full = m.command === ERR_MONLISTFULL;
    const targets = (m.params[full ? 2 : 1] ?? "").split(",").filter(Boolean);
    const shares = full
      ? this.monitor.refused(targets)
      : this.monitor.told(m.command === RPL_MONONLINE, targets);
    return () => {
      for (const [c, mine] of shares) {
        for (const t of targetLines(mine)) {
          const me = m.params[0] ?? this.nick;
          const params = full ? [me, m.params[1], t, m.params[3]] : [me, t];
          this.#send(c, { ...m, tags: new Map(m.tags), params });
        }
      }
    };
  }

  /**
   * News of someone the user shares no channel with comes only because clients watch them
   * (extended-monitor): it goes to those clients, when they took the capability; undefined when
   * the line is everyone's.
   */
  #watchersOnly(m: IrcMessage, me: string): Set<Downstream> | undefined {
    if (!this.monitor.active || !MONITOR_NEWS.has(m.command)) return undefined;
    const nick = nickOf(m.prefix);
    if (!nick || !m.prefix.includes("!") || ircLower(nick) === ircLower(me)) return undefined;
    if (!this.conn || this.conn.sees(nick)) return undefined;
    return new Set(
      [...this.clients].filter((c) => extendedMonitor(c.caps) && this.monitor.watches(c, nick)),
    );
  }

  /** Follows the user's nick through the lines relayed (the welcome, the user's own NICK). */
  #follow(m: IrcMessage, me: string): void {
    if (m.command === RPL_WELCOME) this.#me = m.params[0] || me;
    else if (m.command === "NICK" && me && ircLower(nickOf(m.prefix)) === ircLower(me)) {
      this.#me = m.params[0] || me;
      if (m.params[0]) this.#pending.done("NICK", m.params[0]);
    }
  }

  /**
   * One line from the server, in its order, once the connection handled it: `produced` says
   * what became of it (stored with its row's msgid and time, ignored, or not stored).
   */
  line(out: LineOut): void {
    // A server's answer the web client would show (LineOut.show) is shown unless it answered
    // an IRC client's command: then it is that client's alone.
    if (!this.#relay(out)) out.show?.();
  }

  /** Relays one line (see `line`); true when it answered an IRC client's command. */
  #relay(out: LineOut): boolean {
    // The message is shared with the connection's handlers: the stream's copy has its own tags.
    const m: IrcMessage = { ...out.message, tags: new Map(out.message.tags) };
    const produced = out.produced;
    if (produced?.kind === "own" || produced?.kind === "history") return false;
    const meBefore = this.#me ?? this.state.nick;
    if (m.tags.has("+draft/reply")) this.#ownReply(m, this.#conversationOf(m, meBefore));
    this.#follow(m, meBefore);
    // Registered again: the answers still awaited will never come.
    if (m.command === RPL_WELCOME) {
      this.#pending.clear().forEach((e) => this.#later(() => this.#close(e)));
      // Nor the echoes of lines written before.
      this.#sent.clear();
      // The new registration's server watches nothing yet.
      this.monitor.reconnected();
      this.#monitorAgain = this.monitor.active;
    }
    // What the server has on is known at its welcome, and changes with a CAP NEW or DEL after it
    // (a registration's CAP lines would take everything off before putting it back).
    if (m.command === RPL_WELCOME || (m.command === "CAP" && this.conn?.state === "connected")) {
      for (const c of this.clients) c.followServer?.(this.state.caps);
    }
    if (this.#monitorAgain && (m.command === RPL_ENDOFMOTD || m.command === ERR_NOMOTD)) {
      this.#monitorAgain = false;
      if (this.state.isupportHas("MONITOR")) this.watch("+", this.monitor.watched());
    }
    for (const e of this.#pending.expired()) this.#later(() => this.#close(e));
    if (!m.tags.has("time")) m.tags.set("time", new Date().toISOString());
    const numeric = /^\d{3}$/.test(m.command);
    // A refusal of a client's JOIN or PART is looked for once, before any query may take it.
    const askerFirst = this.#joinsAndParts.length > 0 && numeric
      ? this.#joinOrPartAnswer(m, meBefore)
      : undefined;
    const byLabel = this.#byUpstreamLabel(m);
    if (byLabel) {
      this.#later(byLabel);
      return true;
    }
    // Any other label is one Parley put on a client's chat line: its echo is matched by it, and
    // no client sees it.
    const upLabel = m.tags.get("label");
    if (upLabel !== undefined) {
      m.tags.delete("label");
      if (m.command === "ACK") return false;
    }
    if (m.command === ERR_CANNOTSENDTOCHAN || m.command === ERR_NOSUCHNICK) {
      const refused = this.#refusedEcho(m, upLabel);
      if (refused) {
        this.#later(refused);
        return true;
      }
    }
    if (
      this.monitor.active &&
      (m.command === RPL_MONONLINE || m.command === RPL_MONOFFLINE || m.command === ERR_MONLISTFULL)
    ) {
      this.#later(this.#monitorReply(m));
      return true;
    }
    const routed = askerFirst ? undefined : this.#pending.route(m);
    // The web client's: shown there, sent to no IRC client.
    if (routed?.entry.client === this.#web) return false;
    if (routed) {
      const first = routed.entry.given === 1;
      this.#later(() => this.#answer(routed, m, first));
      return true;
    }
    if (m.command === "PONG" && this.#fences.length) this.#fenceEnded(m.params[1]);
    if (NEVER.has(m.command)) return false;
    const ownJoin = m.command === "JOIN" && !!meBefore &&
      ircLower(nickOf(m.prefix)) === ircLower(meBefore);
    if (ownJoin) this.#join(ircLower(m.params[0] ?? ""));
    if (this.#isChat(m, meBefore)) {
      const target = m.params[0] ?? "";
      if (
        produced?.kind !== "ignored" && this.isChannel(target) &&
        this.detached.seen(target, m.params[1] ?? "", meBefore)
      ) this.onDetachChange(target, false);
      this.#chat(m, produced, meBefore, upLabel);
      return false;
    }
    if (!numeric && !m.tags.has("msgid")) m.tags.set("msgid", passingMsgid());
    // An event history kept as one row carries that row's msgid and time, as CHATHISTORY gives
    // it: whichever command it is, so a newly kept event needs nothing here.
    if (produced?.kind === "stored") stamp(m, produced);
    // A CTCP answer is its asker's: the web client's waits for it (and shows it) itself.
    const ctcpAsker = this.#ctcpAsker(m, meBefore);
    if (ctcpAsker === this.#web) return false;
    if (ctcpAsker) {
      this.#later(() => {
        if (this.clients.has(ctcpAsker)) this.#send(ctcpAsker, m);
      });
      return true;
    }
    // A server's notice answering a fenced command (ngircd's HELP) is its asker's alone.
    const fenced = this.#fences.length ? this.#fenceOf(m, meBefore) : undefined;
    // The web client's: shown there, sent to no IRC client.
    if (fenced === this.#web) return false;
    if (fenced) {
      this.#later(() => {
        if (this.clients.has(fenced)) this.#send(fenced, m);
      });
      return true;
    }
    const asker = askerFirst ?? (numeric ? undefined : this.#joinOrPartAnswer(m, meBefore));
    const echo = this.#rawEcho(m, meBefore);
    const watchers = this.#watchersOnly(m, meBefore);
    this.#later(() => {
      if (!asker && numeric && this.#unasked(m)) return;
      // Left: the names of the user's own JOIN, which a client with no-implicit-names is not sent.
      const joinNames = !asker && (m.command === RPL_NAMREPLY || m.command === RPL_ENDOFNAMES);
      // A JOIN or PART refused is its asker's answer; the JOIN or PART itself everyone's news.
      if (asker && numeric) {
        if (!this.clients.has(asker.client)) return;
        const tags = new Map(m.tags);
        if (asker.label !== undefined) tags.set("label", asker.label);
        return this.#send(asker.client, { ...m, tags });
      }
      for (const c of this.clients) {
        if (joinNames && noImplicitNames(c.caps)) continue;
        if (watchers && !watchers.has(c)) continue;
        if (c === echo?.client) {
          // The sender sees its own line only with echo-message, and then with its label.
          if (!c.caps.has("echo-message")) continue;
          if (echo.label) this.#send(c, { ...m, tags: new Map(m.tags).set("label", echo.label) });
          else this.#send(c, m);
        } else if (c !== asker?.client || asker.label === undefined) this.#send(c, m);
        else this.#send(c, { ...m, tags: new Map(m.tags).set("label", asker.label) });
      }
    });
    if (ownJoin) this.#readMarkers(m.params[0] ?? "");
    return !!asker && numeric;
  }

  /**
   * A chat line of a person to a channel or to the user (or the user's own, echoed): stored, it
   * goes out with its row's msgid and time (the sender's own line with its label, and only to a
   * sender with echo-message); ignored, to no one; not stored, as the server sent it.
   */
  #chat(m: IrcMessage, produced: Produced | undefined, me: string, upLabel?: string): void {
    // Whose line the user's own is, told first, stored or not, so the server's order holds.
    const echo = (this.#echoes.length || this.#sent.size) &&
        ircLower(nickOf(m.prefix)) === ircLower(me)
      ? this.#echoOf(m, upLabel)
      : undefined;
    if (produced?.kind === "ignored") return;
    const serverMsgid = m.tags.get("msgid");
    if (produced?.kind !== "stored") {
      if (!serverMsgid) m.tags.set("msgid", passingMsgid());
      return this.#later(() => this.clients.forEach((c) => this.#send(c, m)));
    }
    if (serverMsgid) this.ids.remember(serverMsgid, produced.msgid);
    stamp(m, produced);
    this.#later(() => this.#toAll(m, echo));
  }

  /** A stored chat line to every client; to its sender only with echo-message, with its label. */
  #toAll(m: IrcMessage, echo: PendingEcho | undefined): void {
    for (const c of this.clients) {
      if (c !== echo?.client) this.#send(c, m);
      else if (c.caps.has("echo-message")) {
        const labeled = { ...m, tags: new Map(m.tags) };
        if (echo.label) labeled.tags.set("label", echo.label);
        this.#send(c, labeled);
      }
    }
  }

  /**
   * A line of the server's labeled answer to a client's query (its label, or its batch): what
   * delivers it to that client, with the client's own label or batch; undefined for other lines.
   */
  #byUpstreamLabel(m: IrcMessage): (() => void) | undefined {
    const label = m.tags.get("label");
    const labeled = label === undefined ? undefined : this.#pending.byLabel(label);
    if (labeled) {
      m.tags.delete("label");
      if (m.command === "BATCH" && m.params[0]?.startsWith("+")) {
        this.#pending.openBatch(m.params[0].slice(1), labeled);
        return () => {};
      }
      this.#pending.remove(labeled);
      if (m.command === "ACK") return () => this.#close(labeled);
      const first = ++labeled.given === 1;
      return () => this.#answer({ entry: labeled, ends: true }, m, first);
    }
    const id = m.tags.get("batch");
    const batched = id === undefined ? undefined : this.#pending.inBatch(id);
    if (batched) {
      m.tags.delete("batch");
      const first = ++batched.given === 1;
      return () => this.#answer({ entry: batched, ends: false }, m, first);
    }
    if (m.command === "BATCH" && m.params[0]?.startsWith("-")) {
      const ended = this.#pending.inBatch(m.params[0].slice(1));
      if (!ended) return undefined;
      this.#pending.remove(ended);
      return () => this.#close(ended);
    }
    return undefined;
  }

  /** Runs now, or after the lines waiting before it (the server's order). */
  #later(deliver: () => void): void {
    if (this.#order.length) this.#enqueue({ done: true, deliver });
    else deliver();
  }

  /**
   * After the user's own JOIN and before its names, each client that takes read markers gets
   * the channel's (draft/read-marker); the server's 353 and 366 wait in order for the lookup.
   */
  #readMarkers(channel: string): void {
    const asking = [...this.clients].filter((c) => c.readMarker && c.caps.has("draft/read-marker"));
    if (!asking.length) return;
    const item: OrderItem = { done: false };
    this.#enqueue(item);
    const marker = (c: Downstream) =>
      c.readMarker!(channel).catch((err) => {
        // The JOIN burst goes on without it: the client asks with MARKREAD when it wants one.
        log.debug("bouncer: a read marker not read", { channel, error: String(err) });
        return undefined;
      });
    Promise.all(asking.map(marker)).then((lines) => {
      item.deliver = () =>
        asking.forEach((c, i) => {
          if (lines[i] && this.clients.has(c)) c.write(lines[i]!);
        });
      item.done = true;
      this.#flush();
    });
  }

  /** The client's own line the server echoes (echo-message), taken off the list. */
  #rawEcho(m: IrcMessage, me: string): RawEcho | undefined {
    if (!this.#rawEchoes.length || !me || ircLower(nickOf(m.prefix)) !== ircLower(me)) {
      return undefined;
    }
    const target = ircLower(m.params[0] ?? "");
    const at = this.#rawEchoes.findIndex((e) => e.command === m.command && e.target === target);
    return at < 0 ? undefined : this.#rawEchoes.splice(at, 1)[0];
  }

  /**
   * A client's line Parley does not store (TAGMSG, a message to a channel not joined) was sent:
   * the other clients see it, and the sender with echo-message, with its label. When the server
   * echoes it, its echo does that; else it is made here.
   */
  ownLine(client: Downstream, m: IrcMessage, label?: string): void {
    // Its echo is a chat line Parley stores, and echoes as it does the client's other lines:
    // sent as the client wrote it, with the origin of its `awaitEcho` (bouncer/commands.ts).
    if (this.state.caps.has("echo-message") && m.command !== "TAGMSG") return;
    if (this.state.caps.has("echo-message")) {
      this.#rawEchoes.push({ client, command: m.command, target: ircLower(m.params[0]), label });
      if (this.#rawEchoes.length > MAX_ECHOES) this.#rawEchoes.shift();
      return;
    }
    const me = this.nick;
    const line: IrcMessage = {
      tags: new Map([...m.tags, ["time", new Date().toISOString()], ["msgid", passingMsgid()]]),
      prefix: this.#ownSource(me),
      command: m.command,
      params: m.params,
    };
    this.#later(() => {
      for (const c of this.clients) {
        if (c !== client) this.#send(c, line);
        else if (c.caps.has("echo-message")) {
          this.#send(c, label ? { ...line, tags: new Map(line.tags).set("label", label) } : line);
        } else if (label && c.caps.has("labeled-response")) {
          c.write(
            formatMessage({
              command: "ACK",
              params: [],
              prefix: SERVER_NAME,
              tags: new Map([["label", label]]),
            }),
          );
        }
      }
    });
  }

  /**
   * The client's JOIN or PART this line answers (the user's own JOIN or PART of the channel, or a
   * numeric refusing it), taken off the list.
   */
  #joinOrPartAnswer(m: IrcMessage, me: string): AwaitedJoinOrPart | undefined {
    if (!this.#joinsAndParts.length) return undefined;
    let command: string;
    let channel: string;
    if ((m.command === "JOIN" || m.command === "PART") && m.prefix.includes("!")) {
      if (!me || ircLower(nickOf(m.prefix)) !== ircLower(me)) return undefined;
      command = m.command;
      channel = ircLower(m.params[0] ?? "");
    } else if (/^\d{3}$/.test(m.command)) {
      channel = ircLower(m.params[1] ?? "");
      const a = this.#joinsAndParts.find((a) =>
        a.channel === channel && REFUSALS[a.command].has(m.command)
      );
      if (!a) return undefined;
      command = a.command;
    } else return undefined;
    const at = this.#joinsAndParts.findIndex((a) => a.command === command && a.channel === channel);
    return at < 0 ? undefined : this.#joinsAndParts.splice(at, 1)[0];
  }

  /**
   * A PRIVMSG or NOTICE Parley stores (or would, were it not ignored or over the limit): a
   * person's, to a channel or to the user, or the user's own; a CTCP other than ACTION is not.
   */
  #isChat(m: IrcMessage, me: string): boolean {
    if (m.command !== "PRIVMSG" && m.command !== "NOTICE") return false;
    if (!m.prefix.includes("!") || !me) return false;
    const text = m.params[1] ?? "";
    if (isCtcp(text) && (m.command !== "PRIVMSG" || !isAction(text))) {
      return false;
    }
    const target = m.params[0] ?? "";
    return this.isChannel(target) || ircLower(target) === ircLower(me) ||
      ircLower(nickOf(m.prefix)) === ircLower(me);
  }

  #enqueue(item: OrderItem): void {
    this.#order.push(item);
    if (this.#order.length > MAX_ORDER) {
      // Too far behind the store: stop waiting, let everything through.
      for (const it of this.#order) it.done = true;
    }
    this.#flush();
  }

  /** Delivers the lines at the head that no longer wait. */
  #flush(): void {
    while (this.#order[0]?.done) this.#order.shift()!.deliver?.();
  }

  /** Stops waiting (the relay stops, or the connection is gone). */
  dispose(): void {
    this.#order = [];
  }

  /**
   * Notes a channel the user joined, whose NAMES reply is then the join's. A server that never
   * ends the replies must not fill the set: past MAX_JOINING the oldest gives way, so the joins
   * after it still get their names.
   */
  #join(channel: string): void {
    this.#joining.delete(channel); // to the end: the newest
    this.#joining.add(channel);
    if (this.#joining.size > MAX_JOINING) {
      this.#joining.delete(this.#joining.values().next().value!);
    }
  }

  /**
   * A query reply no attached client asked for: true when it goes to no client (someone else's
   * answer: the web client's, or Parley's own), false when it is for every client.
   */
  #unasked(m: IrcMessage): boolean {
    if (!QUERY_REPLIES.has(m.command)) return false;
    if (m.command !== RPL_NAMREPLY && m.command !== RPL_ENDOFNAMES) return true;
    const channel = ircLower(m.params[m.command === RPL_NAMREPLY ? 2 : 1] ?? "");
    if (!this.#joining.has(channel)) return true;
    if (m.command === RPL_ENDOFNAMES) this.#joining.delete(channel);
    return false;
  }

  /** A reply to a client's command, to that client: labeled, or in its labeled-response batch. */
  #answer({ entry: q, ends }: Routed<Downstream>, m: IrcMessage, first: boolean): void {
    const c = q.client;
    if (q.label && q.batch === undefined) {
      if ((ends && first) || !c.caps.has("batch") || !c.caps.has("labeled-response")) {
        m.tags.set("label", q.label);
        q.batch = "-";
      } else {
        q.batch = batchId("lr");
        c.write(`@label=${q.label} BATCH +${q.batch} labeled-response`);
      }
    }
    if (q.batch && q.batch !== "-") m.tags.set("batch", q.batch);
    this.#send(c, m);
    if (ends) this.#close(q);
  }

  /** An entry is done (answered, timed out, or never to be): its batch closes, a label is ACKed. */
  #close(q: Pending<Downstream>): void {
    if (q.batch && q.batch !== "-") q.client.write(`BATCH -${q.batch}`);
    else if (q.label && q.batch === undefined && q.client.caps.has("labeled-response")) {
      q.client.write(
        formatMessage({
          command: "ACK",
          params: [],
          prefix: SERVER_NAME,
          tags: new Map([["label", q.label]]),
        }),
      );
    }
    q.batch = "-";
  }

  /** The user's source as the server showed it, else the bare nick. */
  #ownSource(nick: string): string {
    const source = this.state.source;
    return source && ircLower(nickOf(source)) === ircLower(nick) ? source : nick;
  }

  /** The server's msgid a client's `+draft/reply` names (it names the line's own). */
  serverMsgid(own: string): Promise<string> {
    const row = this.conn?.record.id;
    return row === undefined ? Promise.resolve(own) : this.ids.server(row, own);
  }

  /** The conversation a person's line belongs to: its channel, or the other person. */
  #conversationOf(m: IrcMessage, me: string): string {
    const target = m.params[0] ?? "";
    const from = nickOf(m.prefix);
    return this.isChannel(target) || ircLower(from) === ircLower(me) ? target : from;
  }

  /**
   * A line's `+draft/reply` (the server's msgid) as clients know the line: remembered, else
   * looked up in the store while the line waits in the server's order.
   */
  #ownReply(m: IrcMessage, conversation: string): void {
    const server = m.tags.get("+draft/reply");
    if (!server) return;
    const known = this.ids.ownNow(server);
    if (known) return void m.tags.set("+draft/reply", known);
    const row = this.conn?.record.id;
    if (row === undefined || !this.ids.canLook) return;
    const item: OrderItem = { done: false };
    this.#enqueue(item);
    this.ids.own(row, conversation, server).then((own) => {
      if (own) m.tags.set("+draft/reply", own);
      item.done = true;
      this.#flush();
    });
  }

  /**
   * A channel was detached or reattached: every client gets its PART, or its JOIN burst, in the
   * server's order.
   */
  toggleDetached(channel: string, state: DetachState): void {
    this.detached.set(channel, state);
    const clients = [...this.clients];
    if (state.detached) {
      const part: IrcMessage = {
        tags: new Map(),
        prefix: this.#ownSource(this.nick),
        command: "PART",
        params: [channel, "Detached"],
      };
      return this.#later(() =>
        clients.forEach((c) => this.clients.has(c) && this.#deliver(c, part))
      );
    }
    const item: OrderItem = { done: false };
    this.#enqueue(item);
    Promise.all(clients.map((c) => c.channelBurst?.(channel).catch(() => []) ?? [])).then(
      (bursts) => {
        item.deliver = () =>
          clients.forEach((c, i) => {
            if (this.clients.has(c)) { for (const l of bursts[i]) c.write(l); }
          });
        item.done = true;
        this.#flush();
      },
    );
  }

  /** A line to a client, past the detached channels' filter. */
  #send(c: Downstream, m: IrcMessage): void {
    if (this.detached.any) {
      const passage = this.detached.lets(m, this.nick);
      if (passage === "drop") return;
      if (passage === "notice") {
        const line = relayNotice(m, this.nick);
        if (line) c.write(line);
        return;
      }
    }
    this.#deliver(c, m);
  }

  #deliver(c: Downstream, m: IrcMessage): void {
    const line = forClient(c.caps, m, { prefixes: this.state.prefixSymbols(), myNick: this.nick });
    if (line !== undefined) c.write(line, m.tags.get("msgid"));
  }

  /**
   * A message was stored. Those from the server reached the clients through `line`; the user's
   * own lines the server does not echo (sent from the web client or an attached client) reach
   * them from here, with the stored time and msgid.
   */
  stored(ev: MessageEvent | BusMessageEvent): void {
    // The server's conversation holds lines said to a service too: those name whom (`to`).
    const to = (ev as BusMessageEvent).to;
    if ((ev.conversation_id === "" && to === undefined) || ev.type === "error") return;
    if (!this.clients.size) return;
    if (ircLower(ev.from) !== ircLower(this.nick)) return;
    // With echo-message the server's echo is the line (stored by the connection, then `line`).
    if (this.serverEchoes) return;
    const ts = parseMicros(ev.ts) ?? Date.now() * 1000;
    const channel = this.state.channel(ev.conversation_id)?.name ??
      (this.isChannel(ev.conversation_id) ? ev.conversation_id : undefined);
    // The sender's line is the one sent with its origin token: every part of it (a line split to
    // fit), the first with its label. The sender forgets it once sent (bouncer/commands.ts).
    const origin = (ev as BusMessageEvent).origin;
    let echo = origin === undefined ? undefined : this.#echoes.find((e) => e.id === origin);
    if (echo?.seen) echo = { ...echo, label: undefined };
    else if (echo) echo.seen = true;
    const target = channel ?? echo?.conversation ?? to ?? ev.conversation_id;
    const text = ev.type === "action" ? actionWrap(ev.message) : ev.message;
    const tags = new Map([
      ["time", new Date(Math.floor(ts / 1000)).toISOString()],
      // The stored line's own id (lib/msgid.ts), so live, history and the API agree.
      ["msgid", ev.msgid],
    ]);
    if (ev.reply_to) tags.set("+draft/reply", ev.reply_to);
    // The sender's client-only tags, after the server's (its reply names the id clients know).
    for (const [k, v] of echo?.tags ?? []) if (!tags.has(k)) tags.set(k, v);
    const prefix = this.#ownSource(ev.from);
    const command = ev.type === "notice" ? "NOTICE" : "PRIVMSG";
    try {
      formatMessage({ command, params: [target, text] });
    } catch {
      return;
    }
    const m: IrcMessage = { tags, prefix, command, params: [target, text] };
    this.#ownReply(m, ev.conversation_id);
    this.#later(() => this.#toAll(m, echo));
  }
}

/** A stored line's msgid and time (its row's millisecond), as CHATHISTORY gives them. */
function stamp(m: IrcMessage, stored: Extract<Produced, { kind: "stored" }>): void {
  m.tags.set("msgid", stored.msgid);
  m.tags.set("time", new Date(Math.floor(stored.ts / 1000)).toISOString());
}

/** Where the replies of a client that left go. */
const NOBODY: Downstream = {
  caps: { has: () => false } as unknown as Caps,
  write: () => {},
  quit: () => {},
};

/** Every connection's hub, fed by the connections (the relay is their outlet) and the bus. */
export class Relay implements Outlet {
  #hubs = new Map<string, Hub>();
  #untap: (() => void)[] = [];
  #stopped = false;
  /** Attached clients per user: only their users' stored messages are wanted from the bus. */
  #clients = new Map<number, number>();
  /**
   * Connections with a channel detached or set to detach itself when the relay started: each gets
   * its hub at its first line, so its detachment runs with no IRC client attached, on the node
   * that runs it (a hub elsewhere would see no message and detach an active channel).
   */
  #detaching = new Set<string>();
  /**
   * Per connection without a hub whose server echoes: the chat lines written (the web client's,
   * Parley's own) whose echoes have not come yet, casefolded targets in order. A hub made while
   * they are in flight starts from them, so their echoes do not take the places of its clients'
   * lines. An entry lives only while lines are in flight: a connection whose echoes came keeps
   * nothing.
   */
  #inFlight = new Map<string, SentOrder<PendingEcho>>();

  /** `store` gives the hubs their connections' detached channels. */
  constructor(readonly bus: EventBus, readonly store?: Store) {}

  /** Finds the live connection of a stored one (given by the manager, irc/engine/outlet.ts). */
  #live: (connectionRowId: number) => IrcConnection | undefined = () => undefined;

  bind(live: (connectionRowId: number) => IrcConnection | undefined): void {
    this.#live = live;
  }

  /**
   * One line of a connection, handled (irc/engine/outlet.ts): to its hub, when a client made one;
   * else nothing is kept (the connection's own state has seen the line).
   */
  line(conn: IrcConnection, out: LineOut): void {
    if (this.#stopped) return void out.show?.();
    const k = key(conn.userId, conn.id);
    let hub = this.#hubs.get(k);
    if (!hub) {
      if (!this.#detaching.delete(k)) {
        if (this.#inFlight.size) this.#echoed(k, conn, out.message);
        return void out.show?.();
      }
      hub = this.hub(conn.userId, conn.id);
    }
    hub.use(conn);
    hub.line(out);
  }

  /**
   * The web client's raw line written to a connection's server: to its hub, when it has one;
   * the line to write right after it, if any (a fence).
   */
  asked(conn: IrcConnection, line: string): IrcLine | undefined {
    if (this.#stopped) return undefined;
    const hub = this.#hubs.get(key(conn.userId, conn.id));
    if (!hub) return undefined;
    hub.use(conn);
    return hub.asked(line);
  }

  /** A chat line of a connection written to its server: to its hub, when it has one. */
  wrote(conn: IrcConnection, target: string, origin: string | undefined): void {
    if (this.#stopped) return;
    const k = key(conn.userId, conn.id);
    const hub = this.#hubs.get(k);
    if (hub) {
      hub.use(conn);
      return hub.wrote(target, origin);
    }
    if (!conn.echoes) return;
    let sent = this.#inFlight.get(k);
    if (!sent) this.#inFlight.set(k, sent = new SentOrder());
    sent.wrote(target);
  }

  /**
   * A line of a connection without a hub: the echo of a line in flight (or the server's refusal
   * of it, or a new registration) takes it off the list, as a hub would (`Hub.wrote`).
   */
  #echoed(k: string, conn: IrcConnection, m: IrcMessage): void {
    const sent = this.#inFlight.get(k);
    if (!sent) return;
    let target: string | undefined;
    if (m.command === RPL_WELCOME) sent.clear();
    else if (m.command === ERR_CANNOTSENDTOCHAN || m.command === ERR_NOSUCHNICK) {
      target = m.params[1];
    } else if (
      (m.command === "PRIVMSG" || m.command === "NOTICE") && m.prefix.includes("!") &&
      ircLower(nickOf(m.prefix)) === ircLower(conn.upstream.nick || conn.nick)
    ) target = m.params[0];
    // A line to several targets was told once per target (`IrcConnection` splits them).
    for (const t of target?.split(",") ?? []) sent.take(t);
    if (!sent.size) this.#inFlight.delete(k);
  }

  attached(conn: IrcConnection): boolean {
    return (this.#hubs.get(key(conn.userId, conn.id))?.clients.size ?? 0) > 0;
  }

  /** A removed connection's hub goes with it, and its clients are told. */
  gone(conn: IrcConnection): void {
    this.#inFlight.delete(key(conn.userId, conn.id));
    this.forget(conn.userId, conn.id);
  }

  start(): void {
    this.#stopped = false;
    this.#readDetaching();
    this.#untap.push(this.bus.tap((userId, c) => {
      if (c.event === "detach_missed") return this.#detachMissed();
      if (c.event !== "detach") return;
      const hub = this.#hubs.get(key(userId, c.connection_id));
      if (!hub) this.#detachedWithoutHub(userId, c.connection_id);
      else if (c.toggled) hub.toggleDetached(c.channel, c.state);
      else hub.detached.set(c.channel, c.state);
    }, ["detach", "detach_missed"]));
    this.#untap.push(this.bus.tap(
      (userId, ev) => {
        if (ev.event !== "message") return;
        this.#hubs.get(key(userId, ev.connection_id))?.stored(ev);
      },
      ["message"],
      (userId) => this.#clients.has(userId),
    ));
  }

  /** Notes the connections with a channel detached or set to detach itself (each gets a hub). */
  #readDetaching(): void {
    this.store?.conversations.withDetachment().then(
      (list) => {
        for (const c of list) this.#detaching.add(key(c.userId, c.connectionId));
      },
      (err) =>
        log.warn("bouncer: detached channels not read; they wait for an IRC client", {
          error: String(err),
        }),
    );
  }

  /**
   * Detachment changes may have been missed (told by another node while this one was not
   * listening): every hub reads its channels' detachment again, its clients getting the PART or
   * the JOIN burst of each channel whose detachment changed; connections without a hub are noted
   * again as at the start.
   */
  #detachMissed(): void {
    const store = this.store;
    if (!store || this.#stopped) return;
    this.#readDetaching();
    for (const hub of this.#hubs.values()) {
      this.#storedDetachment(hub, store).then((stored) => {
        if (this.#hubs.get(key(hub.userId, hub.connectionId)) !== hub) return;
        for (const { name, detach: d } of stored) {
          if (d.detached !== hub.detached.isDetached(name)) hub.toggleDetached(name, d);
          else if (d.detached || d.detachAfter > 0 || hub.detached.has(name)) {
            hub.detached.set(name, d);
          }
        }
      }).catch((err) =>
        log.warn("bouncer: detached channels not read again; they change at the next change", {
          uid: hub.userId,
          connection: hub.connectionId,
          error: String(err),
        })
      );
    }
  }

  /** The hub's connection's conversations with their stored detachment (none once it is gone). */
  async #storedDetachment(hub: Hub, store: Store) {
    const record = await store.connections.get(hub.userId, hub.connectionId);
    return record ? await store.conversations.listForConnection(record.id, { unread: false }) : [];
  }

  /**
   * A channel's detachment changed on a connection with no hub (on any node: a cluster tells every
   * node, cluster/detach.ts). The connection gets its hub now when it runs here: the hub loads the
   * change from the store, so its detach-after timer starts. Else at its first line here, should
   * it come to run here: a hub where it does not run would see none of its messages, and detach
   * an active channel.
   */
  #detachedWithoutHub(userId: number, connectionId: string): void {
    const store = this.store;
    if (!store) return void this.hub(userId, connectionId);
    const k = key(userId, connectionId);
    this.#detaching.add(k);
    store.connections.get(userId, connectionId).then((record) => {
      if (this.#stopped || !record || !this.#detaching.has(k) || !this.#live(record.id)) return;
      this.#detaching.delete(k);
      this.hub(userId, connectionId, record.id);
    }, (err) =>
      log.warn("bouncer: a detachment change waits for the connection's next line", {
        uid: userId,
        connection: connectionId,
        error: String(err),
      }));
  }

  stop(): void {
    this.#stopped = true;
    for (const f of this.#untap.splice(0)) f();
    for (const hub of this.#hubs.values()) hub.dispose();
  }

  /** Whether the user has IRC clients attached (to any connection). */
  hasClients(userId: number): boolean {
    return this.#clients.has(userId);
  }

  /** The hub of a connection, when there is one. */
  existing(userId: number, connectionId: string): Hub | undefined {
    return this.#hubs.get(key(userId, connectionId));
  }

  /** How many connections without a hub have chat lines in flight (their echoes to come). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** How many connections have a hub (each one a client attached to once, or a detachment). */
  get hubs(): number {
    return this.#hubs.size;
  }

  /** The hub of a connection, made when there is none; `rowId` finds its live connection. */
  hub(userId: number, connectionId: string, rowId?: number): Hub {
    let hub = this.#hubs.get(key(userId, connectionId));
    if (hub && !hub.conn && rowId !== undefined) hub.use(this.#live(rowId));
    if (!hub) {
      hub = new Hub(userId, connectionId, (uid, change) => {
        const n = (this.#clients.get(uid) ?? 0) + change;
        if (n > 0) this.#clients.set(uid, n);
        else this.#clients.delete(uid);
      }, this.store);
      if (rowId !== undefined) hub.use(this.#live(rowId));
      const k = key(userId, connectionId);
      this.#hubs.set(k, hub);
      const inFlight = this.#inFlight.get(k);
      if (inFlight) {
        this.#inFlight.delete(k);
        hub.seedSent(inFlight);
      }
      if (this.store) this.#detachment(hub, this.store);
    }
    return hub;
  }

  /** Loads the hub's detached channels, and stores what the hub decides of them. */
  #detachment(hub: Hub, store: Store): void {
    const { userId, connectionId } = hub;
    hub.onDetachChange = (channel, detached) =>
      void changeDetach(store, userId, connectionId, channel, { detached }, this.bus).catch(
        (err) =>
          log.warn("bouncer: a channel's detachment not stored; it holds until the next change", {
            uid: userId,
            connection: connectionId,
            channel,
            detached,
            error: String(err),
          }),
      );
    hub.loaded = this.#storedDetachment(hub, store).then((stored) => {
      for (const { name, detach: d } of stored) {
        if (d.detached || d.detachAfter > 0) hub.detached.set(name, d);
      }
    }).catch((err) =>
      log.warn("bouncer: detached channels not read; IRC clients see them attached", {
        uid: userId,
        connection: connectionId,
        error: String(err),
      })
    );
  }

  /** A connection is gone (removed, or its user deleted). */
  forget(userId: number, connectionId: string): void {
    const hub = this.#hubs.get(key(userId, connectionId));
    if (!hub) return;
    this.#hubs.delete(key(userId, connectionId));
    hub.dispose();
    hub.detached.dispose();
    for (const c of [...hub.clients]) {
      hub.detach(c);
      c.quit("The connection was removed");
    }
  }
}

const key = (userId: number, connectionId: string) => `${userId}\0${connectionId}`;
