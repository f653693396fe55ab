/**
 * One live stream per connection: every line the server sends reaches every attached client
 * (as each one's capabilities allow), and every stored message (from IRC, from the web client,
 * from another attached client) reaches them from the bus with its stored time and msgid. Replies
 * to a client's own query (WHOIS, WHO, LIST, NAMES, MODE) go to that client only.
 */
import type { EventBus } from "../lib/bus.ts";
import type { MessageEvent } from "../lib/events.ts";
import { parseMicros } from "../lib/time.ts";
import { ircLower } from "../irc/casefold.ts";
import type { IrcConnection } from "../irc/engine/connection.ts";
import { tapUpstream } from "../irc/engine/tap.ts";
import type { Caps } from "./caps.ts";
import { forClient } from "./filter.ts";
import { passingMsgid, storedMsgid } from "./msgid.ts";
import { UpstreamState } from "./upstream_state.ts";
import { formatLine, type Message, nickOf, parseLine } from "./wire.ts";

/** An attached client, as the relay sees it. */
export interface Downstream {
  caps: Caps;
  /** Queues one line (without CR LF) for the client. */
  write(line: string): void;
}

/** Lines of the server's own that no client is sent: registration, SASL, pings. */
const NEVER = new Set([
  "PING",
  "PONG",
  "CAP",
  "AUTHENTICATE",
  "ERROR",
  "001",
  "002",
  "003",
  "004",
  "005",
  "375",
  "372",
  "376",
  "422",
  ...Array.from({ length: 17 }, (_, i) => String(250 + i)),
  ...Array.from({ length: 9 }, (_, i) => String(900 + i)),
]);

/** A query whose replies go to the client that asked. */
export interface Query {
  client: Downstream;
  /** The numerics that end its reply. */
  ends: ReadonlySet<string>;
  /** Numerics that may follow the end and still belong to it (329 after 324). */
  trail?: ReadonlySet<string>;
  label?: string;
  batch?: string;
}

/** A line a client sent and waits to see stored, to echo it (echo-message) with its label. */
interface PendingEcho {
  client: Downstream;
  conversation: string;
  text: string;
  label?: string;
}

const MAX_QUERIES = 64;
const MAX_ECHOES = 256;
let batches = 0;

/** One connection's live stream and the clients attached to it. */
export class Hub {
  readonly state = new UpstreamState();
  readonly clients = new Set<Downstream>();
  conn?: IrcConnection;
  /** The stored connection's nick, for a connection that has not spoken since Parley started. */
  recordNick = "";
  #queries: Query[] = [];
  #ended?: Query;
  #echoes: PendingEcho[] = [];

  constructor(readonly userId: number, readonly connectionId: string) {}

  /** The nick to show: the server's view, else the connection's. */
  get nick(): string {
    return this.state.nick || this.conn?.nick || this.conn?.wantedNick || this.recordNick || "*";
  }

  /** Whether a name is a channel on this server. */
  isChannel(name: string): boolean {
    const types = this.state.isupportValue("CHANTYPES") ?? "#&";
    return !!name && types.includes(name[0]);
  }

  /** Replies to this query go to its client until one of its end numerics. */
  expect(q: Query): boolean {
    if (this.#queries.length >= MAX_QUERIES) return false;
    this.#queries.push(q);
    return true;
  }

  /** A client's line waits for its stored copy (see `stored`). */
  awaitEcho(e: PendingEcho): void {
    this.#echoes.push(e);
    if (this.#echoes.length > MAX_ECHOES) this.#echoes.shift();
  }

  /** A client left: its queries' replies go nowhere, its echoes to nobody. */
  detach(client: Downstream): void {
    this.clients.delete(client);
    for (const q of this.#queries) if (q.client === client) q.client = NOBODY;
    this.#echoes = this.#echoes.filter((e) => e.client !== client);
  }

  /** One raw line from the server. */
  upstream(raw: string): void {
    const m = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (!m) return;
    const meBefore = this.state.nick;
    this.state.see(m);
    if (NEVER.has(m.command)) return;
    if (this.#fromBus(m, meBefore)) return;
    if (!m.tags.has("time")) m.tags.set("time", new Date().toISOString());
    if (!/^\d{3}$/.test(m.command) && !m.tags.has("msgid")) m.tags.set("msgid", passingMsgid());
    if (/^\d{3}$/.test(m.command) && this.#reply(m)) return;
    for (const c of this.clients) this.#send(c, m);
  }

  /** A chat line Parley stores: its clients get it from the bus, with the stored time and id. */
  #fromBus(m: Message, me: string): boolean {
    if (m.command !== "PRIVMSG" && m.command !== "NOTICE") return false;
    if (!m.prefix.includes("!") || !me) return false;
    const text = m.params[1] ?? "";
    if (text.startsWith("\x01") && !text.startsWith("\x01ACTION")) return false;
    const target = m.params[0] ?? "";
    const from = nickOf(m.prefix);
    return this.isChannel(target) || ircLower(target) === ircLower(me) ||
      ircLower(from) === ircLower(me);
  }

  /** Routes a numeric to the client whose query it answers; false when it is nobody's. */
  #reply(m: Message): boolean {
    const q = this.#queries[0];
    if (!q) {
      const ended = this.#ended;
      this.#ended = undefined;
      if (ended?.trail?.has(m.command)) {
        this.#send(ended.client, m);
        return true;
      }
      return false;
    }
    if (q.label && q.client.caps.has("labeled-response") && q.client.caps.has("batch")) {
      if (!q.batch) {
        q.batch = `lr${++batches}`;
        q.client.write(`@label=${q.label} BATCH +${q.batch} labeled-response`);
      }
      m.tags.set("batch", q.batch);
    } else if (q.label && !q.batch) {
      m.tags.set("label", q.label);
      q.batch = "-";
    }
    this.#send(q.client, m);
    const end = q.ends.has(m.command) ||
      (/^[45]/.test(m.command) && !ERRORS_BEFORE_END.has(m.command));
    if (end) {
      this.#queries.shift();
      if (q.batch && q.batch !== "-") q.client.write(`BATCH -${q.batch}`);
      this.#ended = q;
    }
    return true;
  }

  #send(c: Downstream, m: Message): void {
    const line = forClient(c.caps, m, { prefixes: this.state.prefixSymbols(), myNick: this.nick });
    if (line !== undefined) c.write(line);
  }

  /** A message was stored (from IRC, the web client or an attached client). */
  stored(ev: MessageEvent): void {
    if (ev.conversation_id === "" || ev.type === "error" || !this.clients.size) return;
    const ts = parseMicros(ev.ts) ?? Date.now() * 1000;
    const own = ircLower(ev.from) === ircLower(this.nick);
    const channel = this.state.channel(ev.conversation_id)?.name ??
      (this.isChannel(ev.conversation_id) ? ev.conversation_id : undefined);
    const echoAt = own
      ? this.#echoes.findIndex((e) =>
        ircLower(e.conversation) === ev.conversation_id && e.text === ev.message
      )
      : -1;
    const echo = echoAt >= 0 ? this.#echoes.splice(echoAt, 1)[0] : undefined;
    const target = channel ?? (own ? echo?.conversation ?? ev.conversation_id : this.nick);
    const text = ev.type === "action" ? `\x01ACTION ${ev.message}\x01` : ev.message;
    const tags = new Map([
      ["time", new Date(Math.floor(ts / 1000)).toISOString()],
      // The history service's msgid when the event carries one, so live and history agree.
      [
        "msgid",
        (ev as { msgid?: string }).msgid ?? storedMsgid(this.connectionId, ev.conversation_id, ts),
      ],
    ]);
    const prefix = this.state.sources.get(ircLower(ev.from)) ?? ev.from;
    let m: Message;
    try {
      formatLine(ev.type === "notice" ? "NOTICE" : "PRIVMSG", [target, text]);
      m = {
        tags,
        prefix,
        command: ev.type === "notice" ? "NOTICE" : "PRIVMSG",
        params: [target, text],
      };
    } catch {
      return;
    }
    for (const c of this.clients) {
      if (c !== echo?.client) this.#send(c, m);
      else if (c.caps.has("echo-message")) {
        const labeled = { ...m, tags: new Map(m.tags) };
        if (echo.label) labeled.tags.set("label", echo.label);
        this.#send(c, labeled);
      }
    }
  }
}

/** WHOIS and WHOWAS say "no such nick" and then still end their reply. */
const ERRORS_BEFORE_END = new Set(["401", "402", "406"]);

/** Where the replies of a client that left go. */
const NOBODY: Downstream = {
  caps: { has: () => false } as unknown as Caps,
  write: () => {},
};

/** Every connection's hub, fed by the IRC tap and the bus. */
export class Relay {
  #hubs = new Map<string, Hub>();
  #untap: (() => void)[] = [];

  constructor(readonly bus: EventBus) {}

  start(): void {
    this.#untap.push(tapUpstream((conn, line) => {
      const hub = this.hub(conn.userId, conn.id);
      hub.conn = conn;
      hub.upstream(line);
    }));
    this.#untap.push(this.bus.tap((userId, ev) => {
      if (ev.event !== "message") return;
      this.#hubs.get(key(userId, ev.connection_id))?.stored(ev);
    }, ["message"]));
  }

  stop(): void {
    for (const f of this.#untap.splice(0)) f();
  }

  hub(userId: number, connectionId: string): Hub {
    let hub = this.#hubs.get(key(userId, connectionId));
    if (!hub) this.#hubs.set(key(userId, connectionId), hub = new Hub(userId, connectionId));
    return hub;
  }

  /** A connection is gone (removed, or its user deleted). */
  forget(userId: number, connectionId: string): void {
    this.#hubs.delete(key(userId, connectionId));
  }
}

const key = (userId: number, connectionId: string) => `${userId}\0${connectionId}`;
