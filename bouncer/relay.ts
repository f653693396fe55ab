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
import { passingMsgid } from "./msgid.ts";
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

/** A line in the server's order: delivered when done (a stored line once its copy is back). */
interface OrderItem {
  /** The stored message a waiting line becomes (storedKey). */
  key?: string;
  done: boolean;
  deliver?: () => void;
}

/** What tells a raw chat line's stored copy: conversation, sender, kind and text. */
function storedKey(conversation: string, from: string, type: string, text: string): string {
  return `${conversation}\0${ircLower(from)}\0${type}\0${text}`;
}

/** Lines held in order at most; past that, nothing waits. */
const MAX_ORDER = 10_000;
/** How long a line waits for the stored copy of the chat line before it (ms). */
const ORDER_WAIT_MS = 2000;
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
  /** Lines in the server's order, some waiting for their stored copy. */
  #order: OrderItem[] = [];
  #orderTimer?: ReturnType<typeof setTimeout>;
  #timerHead?: OrderItem;

  constructor(
    readonly userId: number,
    readonly connectionId: string,
    /** Told when a client attaches (+1) or leaves (-1). */
    readonly onClients: (userId: number, change: number) => void = () => {},
  ) {}

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
  /** A client joins the stream (after its burst). */
  attach(client: Downstream): void {
    if (this.clients.has(client)) return;
    this.clients.add(client);
    this.onClients(this.userId, 1);
  }

  detach(client: Downstream): void {
    if (this.clients.delete(client)) this.onClients(this.userId, -1);
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
    const key = this.#storedKey(m, meBefore);
    if (key !== undefined) {
      // It comes back from the bus once stored; the lines after it wait for it, in order.
      if (this.clients.size) this.#enqueue({ key, done: false });
      return;
    }
    if (!m.tags.has("time")) m.tags.set("time", new Date().toISOString());
    if (!/^\d{3}$/.test(m.command) && !m.tags.has("msgid")) m.tags.set("msgid", passingMsgid());
    const deliver = () => {
      if (/^\d{3}$/.test(m.command) && this.#reply(m)) return;
      for (const c of this.clients) this.#send(c, m);
    };
    if (this.#order.length) this.#enqueue({ done: true, deliver });
    else deliver();
  }

  /**
   * A chat line Parley stores: its clients get it from the bus, with the stored time and id. Its
   * key names the stored message it becomes (conversation, sender, kind, text).
   */
  #storedKey(m: Message, me: string): string | undefined {
    if (m.command !== "PRIVMSG" && m.command !== "NOTICE") return undefined;
    if (!m.prefix.includes("!") || !me) return undefined;
    let text = m.params[1] ?? "";
    let type = m.command === "NOTICE" ? "notice" : "private";
    if (text.startsWith("\x01")) {
      if (m.command !== "PRIVMSG" || !text.startsWith("\x01ACTION")) return undefined;
      type = "action";
      text = text.endsWith("\x01") ? text.slice(8, -1) : text.slice(8);
    }
    const target = m.params[0] ?? "";
    const from = nickOf(m.prefix);
    const own = ircLower(from) === ircLower(me);
    if (!this.isChannel(target) && ircLower(target) !== ircLower(me) && !own) return undefined;
    const conversation = ircLower(this.isChannel(target) || own ? target : from);
    return storedKey(conversation, from, type, text);
  }

  #enqueue(item: OrderItem): void {
    this.#order.push(item);
    if (this.#order.length > MAX_ORDER) {
      // Too far behind the store: stop waiting, let everything through.
      for (const it of this.#order) it.done = true;
    }
    this.#flush();
  }

  /** Delivers the lines at the head that no longer wait; a stored line waits at most a while. */
  #flush(): void {
    while (this.#order[0]?.done) this.#order.shift()!.deliver?.();
    const head = this.#order[0];
    if (head && head === this.#timerHead) return; // already timed
    clearTimeout(this.#orderTimer);
    this.#orderTimer = undefined;
    this.#timerHead = head;
    if (!head) return;
    // A line Parley did not store after all (a conversation over the limit) holds no one up.
    const timer = setTimeout(() => {
      if (this.#order[0] !== head) return;
      head.done = true;
      this.#flush();
    }, ORDER_WAIT_MS);
    Deno.unrefTimer(timer);
    this.#orderTimer = timer;
  }

  /** Stops waiting (the relay stops). */
  dispose(): void {
    clearTimeout(this.#orderTimer);
    this.#order = [];
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
    if (ev.conversation_id === "" || ev.type === "error") return;
    if (!this.clients.size && !this.#order.length) return;
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
      // The stored line's own id (lib/msgid.ts), so live, history and the API agree.
      ["msgid", ev.msgid],
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
    const deliver = () => {
      for (const c of this.clients) {
        if (c !== echo?.client) this.#send(c, m);
        else if (c.caps.has("echo-message")) {
          const labeled = { ...m, tags: new Map(m.tags) };
          if (echo.label) labeled.tags.set("label", echo.label);
          this.#send(c, labeled);
        }
      }
    };
    // In its place among the server's lines when it came from there; else (the web client, an
    // attached client) now.
    const key = storedKey(ev.conversation_id, ev.from, ev.type, ev.message);
    const slot = this.#order.find((it) => !it.done && it.key === key);
    if (!slot) return deliver();
    slot.deliver = deliver;
    slot.done = true;
    this.#flush();
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
  /** Attached clients per user: only their users' stored messages are wanted from the bus. */
  #clients = new Map<number, number>();

  constructor(readonly bus: EventBus) {}

  start(): void {
    this.#untap.push(tapUpstream((conn, line) => {
      const hub = this.hub(conn.userId, conn.id);
      hub.conn = conn;
      hub.upstream(line);
    }));
    this.#untap.push(this.bus.tap(
      (userId, ev) => {
        if (ev.event !== "message") return;
        this.#hubs.get(key(userId, ev.connection_id))?.stored(ev);
      },
      ["message"],
      (userId) => this.#clients.has(userId),
    ));
  }

  stop(): void {
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

  hub(userId: number, connectionId: string): Hub {
    let hub = this.#hubs.get(key(userId, connectionId));
    if (!hub) {
      hub = new Hub(userId, connectionId, (uid, change) => {
        const n = (this.#clients.get(uid) ?? 0) + change;
        if (n > 0) this.#clients.set(uid, n);
        else this.#clients.delete(uid);
      });
      this.#hubs.set(key(userId, connectionId), hub);
    }
    return hub;
  }

  /** A connection is gone (removed, or its user deleted). */
  forget(userId: number, connectionId: string): void {
    this.#hubs.delete(key(userId, connectionId));
  }
}

const key = (userId: number, connectionId: string) => `${userId}\0${connectionId}`;
