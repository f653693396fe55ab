/**
 * One live stream per connection: every line the server sends reaches every attached client
 * (as each one's capabilities allow), and every stored message (from IRC, from the web client,
 * from another attached client) reaches them from the bus with its stored time and msgid. Replies
 * to a client's own command go to that client only (pending_replies.ts).
 */
import type { EventBus } from "../lib/bus.ts";
import type { MessageEvent } from "../lib/events.ts";
import { parseMicros } from "../lib/time.ts";
import { parseMsgid } from "../lib/msgid.ts";
import { ircLower } from "../irc/casefold.ts";
import type { IrcConnection } from "../irc/engine/connection.ts";
import { tapGone, tapUpstream } from "../irc/engine/tap.ts";
import { tapUnstored, type UnstoredLine } from "../irc/chat/unstored.ts";
import { type KeptEvent, tapKept } from "../irc/chat/kept.ts";
import type { Caps } from "./caps.ts";
import { forClient } from "./filter.ts";
import { passingMsgid } from "./msgid.ts";
import { SERVER_NAME } from "./burst.ts";
import { type Pending, PendingReplies, replySpec, type Routed } from "./pending_replies.ts";
import { UpstreamState } from "./upstream_state.ts";
import { formatLine, type Message, nickOf, parseLine } from "./wire.ts";

/** An attached client, as the relay sees it. */
export interface Downstream {
  caps: Caps;
  /** Queues one line (without CR LF) for the client; `msgid` names a stored message's line. */
  write(line: string, msgid?: string): void;
  /** Sends ERROR and closes (its connection is gone). */
  quit(reason: string): void;
  /** The MARKREAD line of a channel the user just joined (draft/read-marker), if it takes them. */
  readMarker?(channel: string): Promise<string | undefined>;
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

/** A client's JOIN or PART with a label: the server's answer to it carries the label. */
interface LabeledAction {
  client: Downstream;
  command: "JOIN" | "PART";
  /** Casefolded. */
  channel: string;
  label: string;
}

/** The numerics that refuse a JOIN or a PART, naming the channel (their second parameter). */
const REFUSALS: Record<LabeledAction["command"], ReadonlySet<string>> = {
  JOIN: new Set(["403", "405", "437", "471", "473", "474", "475", "476", "477"]),
  PART: new Set(["403", "442"]),
};

/**
 * Numerics that only answer a query (WHOIS, WHOWAS, WHO, LIST, NAMES, MODE queries). When no
 * attached client asked, someone else did (the web client's /whois, or Parley's own WHO after a
 * join): no client gets them. NAMES after the user's own JOIN are the join's, and go to everyone.
 */
const QUERY_REPLIES = new Set([
  ..."311 312 313 317 318 319 320 330 338 378 379 671 276 307 335".split(" "),
  ..."314 369 352 354 315 321 322 323 353 366".split(" "),
  ..."324 329 367 368 348 349 346 347 221".split(" "),
]);

/** A line a client sent and waits to see stored, to echo it (echo-message) with its label. */
interface PendingEcho {
  client: Downstream;
  conversation: string;
  text: string;
  label?: string;
}

/** A line a client sent that Parley does not store (TAGMSG), waiting for the server's echo. */
interface RawEcho {
  client: Downstream;
  command: string;
  /** Casefolded. */
  target: string;
  label?: string;
}

/** A line in the server's order: delivered when done (a stored line once its copy is back). */
interface OrderItem {
  /** The stored message a waiting line becomes (storedKey). */
  key?: string;
  /** The line as the server sent it, for the clients if it is not stored after all. */
  raw?: Message;
  done: boolean;
  deliver?: () => void;
}

/** What tells a raw chat line's stored copy: conversation, sender, kind and text. */
function storedKey(conversation: string, from: string, type: string, text: string): string {
  return `${conversation}\0${ircLower(from)}\0${type}\0${text}`;
}

/** A channel event history keeps, by its command: its kind in history, and its channel's place. */
const KEPT_KINDS: Record<string, string> = {
  JOIN: "join",
  PART: "part",
  KICK: "kick",
  TOPIC: "topic",
  MODE: "mode",
};

/** What tells a channel event's kept copy: kind, conversation and who did it. */
function keptKey(kind: string, conversation: string, from: string): string {
  return `kept\0${kind}\0${conversation}\0${ircLower(from)}`;
}

/** Lines held in order at most; past that, nothing waits. */
const MAX_ORDER = 10_000;
/** How long a line waits for the stored copy of the chat line before it (ms). */
const ORDER_WAIT_MS = 2000;
const MAX_ECHOES = 256;
/** Recent lines whose server msgid a reply or reaction may name (per connection). */
const MAX_IDS = 4096;
const MAX_LABELED = 32;
let batches = 0;
let upstreamLabels = 0;

/** One connection's live stream and the clients attached to it. */
export class Hub {
  readonly state = new UpstreamState();
  readonly clients = new Set<Downstream>();
  conn?: IrcConnection;
  /** The stored connection's nick, for a connection that has not spoken since Parley started. */
  recordNick = "";
  #pending = new PendingReplies<Downstream>();
  #echoes: PendingEcho[] = [];
  #rawEchoes: RawEcho[] = [];
  /**
   * The server's msgid of recent stored lines and their own (the one clients see): replies and
   * reactions name the server's, and are told to clients with the line's own, and back.
   */
  #ownIds = new Map<string, string>();
  #serverIds = new Map<string, string>();
  #labeled: LabeledAction[] = [];
  /** Channels the user just joined, whose NAMES reply is the join's (casefolded). */
  #joining = new Set<string>();
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

  /** The command was not sent after all: no answer will come. */
  forgetExpected(entry: Pending<Downstream>): void {
    this.#pending.remove(entry);
  }

  /** The line was not sent after all: no echo will come. */
  forgetEcho(e: PendingEcho): void {
    this.#echoes = this.#echoes.filter((x) => x !== e);
  }

  /** A client's line waits for its stored copy (see `stored`). */
  awaitEcho(e: PendingEcho): void {
    this.#echoes.push(e);
    if (this.#echoes.length > MAX_ECHOES) this.#echoes.shift();
  }

  /**
   * The answer to a client's labeled JOIN or PART of one channel goes to it with its label;
   * false when too many wait (the client gets a plain ACK).
   */
  expectLabeled(a: LabeledAction): boolean {
    if (this.#labeled.length >= MAX_LABELED) return false;
    this.#labeled.push(a);
    return true;
  }

  /** The labeled JOIN or PART was not sent after all: no answer will come. */
  forgetLabeled(client: Downstream, label: string): void {
    this.#labeled = this.#labeled.filter((a) => a.client !== client || a.label !== label);
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
    this.#pending.replace(client, NOBODY);
    this.#echoes = this.#echoes.filter((e) => e.client !== client);
    this.#rawEchoes = this.#rawEchoes.filter((e) => e.client !== client);
    this.#labeled = this.#labeled.filter((a) => a.client !== client);
  }

  /** One raw line from the server. */
  upstream(raw: string): void {
    const m = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (!m) return;
    const replyTo = m.tags.get("+draft/reply");
    if (replyTo) m.tags.set("+draft/reply", this.#ownIds.get(replyTo) ?? replyTo);
    const meBefore = this.state.nick;
    this.state.see(m);
    // Registered again: the answers still awaited will never come.
    if (m.command === "001") {
      this.#pending.clear().forEach((e) => this.#later(() => this.#close(e)));
    }
    for (const e of this.#pending.expired()) this.#later(() => this.#close(e));
    if (!m.tags.has("time")) m.tags.set("time", new Date().toISOString());
    const labeledFirst = this.#labeled.length > 0 && /^\d{3}$/.test(m.command)
      ? this.#labeledAnswer(m, meBefore)
      : undefined;
    const byLabel = this.#byUpstreamLabel(m);
    if (byLabel) return this.#later(byLabel);
    const routed = labeledFirst ? undefined : this.#pending.route(m);
    if (routed) {
      const first = routed.entry.given === 1;
      return this.#later(() => this.#answer(routed, m, first));
    }
    if (NEVER.has(m.command)) return;
    const ownJoin = m.command === "JOIN" && !!meBefore &&
      ircLower(nickOf(m.prefix)) === ircLower(meBefore);
    if (ownJoin && this.#joining.size < 100) this.#joining.add(ircLower(m.params[0] ?? ""));
    const key = this.#storedKey(m, meBefore);
    if (!/^\d{3}$/.test(m.command) && !m.tags.has("msgid")) m.tags.set("msgid", passingMsgid());
    if (key !== undefined) {
      // It comes back from the bus once stored (or is told unstored); the lines after it wait
      // for it, in order.
      if (this.clients.size) this.#enqueue({ key, raw: m, done: false });
      return;
    }
    const labeled = labeledFirst ?? this.#labeledAnswer(m, meBefore);
    const echo = this.#rawEcho(m, meBefore);
    const deliver = () => {
      if (!labeled && /^\d{3}$/.test(m.command) && this.#unasked(m)) return;
      for (const c of this.clients) {
        if (c === echo?.client) {
          // The sender sees its own line only with echo-message, and then with its label.
          if (!c.caps.has("echo-message")) continue;
          if (echo.label) this.#send(c, { ...m, tags: new Map(m.tags).set("label", echo.label) });
          else this.#send(c, m);
        } else if (c !== labeled?.client) this.#send(c, m);
        else this.#send(c, { ...m, tags: new Map(m.tags).set("label", labeled.label) });
      }
    };
    // A channel event history keeps waits for its kept copy, to carry that row's msgid.
    const kind = KEPT_KINDS[m.command];
    if (kind && this.clients.size && m.prefix.includes("!") && this.isChannel(m.params[0] ?? "")) {
      const key = keptKey(kind, ircLower(m.params[0]), nickOf(m.prefix));
      this.#enqueue({ key, raw: m, done: false, deliver });
    } else this.#later(deliver);
    if (ownJoin) this.#readMarkers(m.params[0] ?? "");
  }

  /**
   * A line of the server's labeled answer to a client's query (its label, or its batch): what
   * delivers it to that client, with the client's own label or batch; undefined for other lines.
   */
  #byUpstreamLabel(m: Message): (() => void) | undefined {
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
    Promise.all(asking.map((c) => c.readMarker!(channel).catch(() => undefined))).then((lines) => {
      item.deliver = () =>
        asking.forEach((c, i) => {
          if (lines[i] && this.clients.has(c)) c.write(lines[i]!);
        });
      item.done = true;
      this.#flush();
    });
  }

  /** The client's own line the server echoes (echo-message), taken off the list. */
  #rawEcho(m: Message, me: string): RawEcho | undefined {
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
  ownLine(client: Downstream, m: Message, label?: string): void {
    if (this.state.caps.has("echo-message") && m.command !== "TAGMSG") {
      // Its echo is a chat line Parley stores, and echoes as it does the client's other lines.
      const text = m.params[1] ?? "";
      // Stored as an action's words, as the client's other actions are.
      const action = text.startsWith("\x01ACTION ")
        ? text.slice(8, text.endsWith("\x01") ? -1 : undefined)
        : undefined;
      return this.awaitEcho({ client, conversation: m.params[0], text: action ?? text, label });
    }
    if (this.state.caps.has("echo-message")) {
      this.#rawEchoes.push({ client, command: m.command, target: ircLower(m.params[0]), label });
      if (this.#rawEchoes.length > MAX_ECHOES) this.#rawEchoes.shift();
      return;
    }
    const me = this.nick;
    const line: Message = {
      tags: new Map([...m.tags, ["time", new Date().toISOString()], ["msgid", passingMsgid()]]),
      prefix: this.state.sources.get(ircLower(me)) ?? me,
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
            formatLine("ACK", [], { prefix: SERVER_NAME, tags: new Map([["label", label]]) }),
          );
        }
      }
    });
  }

  /**
   * The labeled JOIN or PART this line answers (the user's own JOIN or PART of the channel, or a
   * numeric refusing it), taken off the list.
   */
  #labeledAnswer(m: Message, me: string): LabeledAction | undefined {
    if (!this.#labeled.length) return undefined;
    let command: string;
    let channel: string;
    if ((m.command === "JOIN" || m.command === "PART") && m.prefix.includes("!")) {
      if (!me || ircLower(nickOf(m.prefix)) !== ircLower(me)) return undefined;
      command = m.command;
      channel = ircLower(m.params[0] ?? "");
    } else if (/^\d{3}$/.test(m.command)) {
      channel = ircLower(m.params[1] ?? "");
      const a = this.#labeled.find((a) =>
        a.channel === channel && REFUSALS[a.command].has(m.command)
      );
      if (!a) return undefined;
      command = a.command;
    } else return undefined;
    const at = this.#labeled.findIndex((a) => a.command === command && a.channel === channel);
    return at < 0 ? undefined : this.#labeled.splice(at, 1)[0];
  }

  /** A channel event was kept (with the msgid of its row), or not kept (without). */
  kept(ev: KeptEvent): void {
    const key = keptKey(ev.kind, ev.conversationId, ev.from);
    const slot = this.#order.find((it) => !it.done && it.key === key);
    if (!slot) return;
    if (ev.msgid) {
      slot.raw?.tags.set("msgid", ev.msgid);
      // The row's own millisecond (the msgid says it), as CHATHISTORY gives the same line.
      const id = parseMsgid(ev.msgid);
      if (id) slot.raw?.tags.set("time", new Date(id.ms).toISOString());
    }
    slot.done = true;
    this.#flush();
  }

  /** A chat line Parley will not store (ignored, or past the conversation limit). */
  unstored(line: UnstoredLine, conversation: string): void {
    const key = storedKey(conversation, line.from, line.type, line.text);
    const slot = this.#order.find((it) => !it.done && it.key === key);
    if (!slot) return;
    const raw = slot.raw;
    // An ignored person's line is shown nowhere; one past the limit goes out as the server sent it.
    if (raw && !line.ignored) slot.deliver = () => this.clients.forEach((c) => this.#send(c, raw));
    slot.done = true;
    this.#flush();
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

  /** Stops waiting (the relay stops, or the connection is gone). */
  dispose(): void {
    clearTimeout(this.#orderTimer);
    this.#order = [];
  }

  /**
   * A query reply no attached client asked for: true when it goes to no client (someone else's
   * answer: the web client's, or Parley's own), false when it is for every client.
   */
  #unasked(m: Message): boolean {
    if (!QUERY_REPLIES.has(m.command)) return false;
    if (m.command !== "353" && m.command !== "366") return true;
    const channel = ircLower(m.params[m.command === "353" ? 2 : 1] ?? "");
    if (!this.#joining.has(channel)) return true;
    if (m.command === "366") this.#joining.delete(channel);
    return false;
  }

  /** A reply to a client's command, to that client: labeled, or in its labeled-response batch. */
  #answer({ entry: q, ends }: Routed<Downstream>, m: Message, first: boolean): void {
    const c = q.client;
    if (q.label && q.batch === undefined) {
      if ((ends && first) || !c.caps.has("batch") || !c.caps.has("labeled-response")) {
        m.tags.set("label", q.label);
        q.batch = "-";
      } else {
        q.batch = `lr${++batches}`;
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
        formatLine("ACK", [], { prefix: SERVER_NAME, tags: new Map([["label", q.label]]) }),
      );
    }
    q.batch = "-";
  }

  /** The server's msgid a client's `+draft/reply` names (it names the line's own). */
  serverMsgid(own: string): string {
    return this.#serverIds.get(own) ?? own;
  }

  #rememberIds(server: string, own: string): void {
    this.#ownIds.set(server, own);
    this.#serverIds.set(own, server);
    if (this.#ownIds.size > MAX_IDS) {
      const [oldest, ownOfIt] = this.#ownIds.entries().next().value!;
      this.#ownIds.delete(oldest);
      this.#serverIds.delete(ownOfIt);
    }
  }

  #send(c: Downstream, m: Message): void {
    const line = forClient(c.caps, m, { prefixes: this.state.prefixSymbols(), myNick: this.nick });
    if (line !== undefined) c.write(line, m.tags.get("msgid"));
  }

  /** A message was stored (from IRC, the web client or an attached client). */
  stored(ev: MessageEvent): void {
    if (ev.conversation_id === "" || ev.type === "error") return;
    if (ev.server_msgid) this.#rememberIds(ev.server_msgid, ev.msgid);
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
    if (ev.reply_to) tags.set("+draft/reply", this.#ownIds.get(ev.reply_to) ?? ev.reply_to);
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

/** Where the replies of a client that left go. */
const NOBODY: Downstream = {
  caps: { has: () => false } as unknown as Caps,
  write: () => {},
  quit: () => {},
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
    this.#untap.push(tapUnstored((conn, line) => {
      this.#hubs.get(key(conn.userId, conn.id))?.unstored(line, conn.conversationId(line.name));
    }));
    this.#untap.push(tapKept((conn, ev) => this.#hubs.get(key(conn.userId, conn.id))?.kept(ev)));
    // A removed connection's hub goes with it, and its clients are told.
    this.#untap.push(tapGone((conn) => this.forget(conn.userId, conn.id)));
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
    const hub = this.#hubs.get(key(userId, connectionId));
    if (!hub) return;
    this.#hubs.delete(key(userId, connectionId));
    hub.dispose();
    for (const c of [...hub.clients]) {
      hub.detach(c);
      c.quit("The connection was removed");
    }
  }
}

const key = (userId: number, connectionId: string) => `${userId}\0${connectionId}`;
