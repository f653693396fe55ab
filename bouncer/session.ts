/**
 * One attached client: registration (CAP, SASL or PASS, NICK, USER), then its lines through the
 * command table (commands.ts), bounded in rate; the relay's lines out. QUIT or a closed socket
 * detaches it; the IRC connection stays.
 */
import type { IrcControl } from "../irc/control.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import { log } from "../lib/log.ts";
import { type AuthDeps, authenticate, type Login, type Refusal } from "./auth.ts";
import { burstLines, channelBurst, controlBurst, SERVER_NAME } from "./burst.ts";
import type { ConnectionService } from "../irc/connection_service.ts";
import { Caps } from "./caps.ts";
import { COMMANDS, labelOf, PASS_THROUGH } from "./commands.ts";
import type { HistoryScope, HistoryService } from "./history.ts";
import { type BouncerLimits, lineCost } from "./limits.ts";
import type { Hub, Relay } from "./relay.ts";
import { Sasl } from "./sasl.ts";
import type { ClientTransport } from "./transport.ts";
import { formatMessage, type IrcMessage, parseMessage } from "../irc/protocol/message.ts";
import { forClient } from "./filter.ts";
import type { BouncerCluster, RemoteEnd } from "./cluster.ts";
import { stillValid } from "./credentials.ts";
import { type BouncerServices, serviceTokens } from "./services.ts";
import type { ServiceDeps } from "./service/table.ts";
import {
  ERR_INPUTTOOLONG,
  ERR_NEEDMOREPARAMS,
  ERR_NOTREGISTERED,
  ERR_PASSWDMISMATCH,
  ERR_UNKNOWNCOMMAND,
  ERR_UNKNOWNERROR,
} from "../irc/protocol/numerics.ts";

/** What every session shares. */
export interface BouncerContext extends AuthDeps {
  irc: IrcControl;
  relay: Relay;
  history: HistoryService;
  limits: BouncerLimits;
  version: string;
  /** Attached clients per user. */
  attached: Map<number, number>;
  /**
   * Attached clients per user that say the user is there: all but those that said `AWAY *`
   * (draft/pre-away), a phone app in the background. Automatic away counts these.
   */
  present: Map<number, number>;
  /**
   * Logged-in sessions per user, whether this node runs them or carries their lines to another:
   * a revocation ends them (credentials.ts).
   */
  logins: Map<number, Set<Session>>;
  /** Clients told of every network's changes (soju.im/bouncer-networks-notify). */
  networkWatchers: Set<Session>;
  connections: ConnectionService;
  /** With several nodes: hands a client over to the node that runs its user. */
  cluster?: BouncerCluster;
  /** Web Push for IRC clients and the upload URL, with their ISUPPORT tokens (services.ts). */
  services?: BouncerServices;
  /** The account hooks BouncerServ runs as the routes do (revocations, user deletion). */
  accounts?: Pick<ServiceDeps, "revocations" | "userDeleted">;
}

/**
 * The most bytes of tag data a client may send (message-tags: 4094 without the `@` and the space;
 * the 8191 a line may carry are the server's and the client's together).
 */
const MAX_CLIENT_TAG_DATA = 4094;

/** The bytes of a line's tag data, as the client wrote it. */
function clientTagBytes(line: string): number {
  if (!line.startsWith("@")) return 0;
  const end = line.indexOf(" ");
  const data = end < 0 ? line.slice(1) : line.slice(1, end);
  // Only a long one is measured in bytes: a character is at most 3 bytes in UTF-16's range.
  return data.length * 3 <= MAX_CLIENT_TAG_DATA
    ? data.length
    : new TextEncoder().encode(data).length;
}

/** Labeled-response batches made by Parley, for their ids. */
let labeledBatches = 0;

/** One client of the listener. */
export class Session {
  readonly caps = new Caps(() => this.sasl.mechanisms);
  readonly sasl = new Sasl(() => this.transport.tls === true);
  nick = "";
  username = "";
  password?: string;
  login?: Login;
  hub?: Hub;
  saslFailures = 0;
  /**
   * An AWAY sent before registration (draft/pre-away), its parameters: applied once attached, a
   * `*` before the client is counted as there, a message sent to the server.
   */
  earlyAway?: string[];
  /** Said `AWAY *`: attached, but not there (draft/pre-away). */
  absent = false;
  /** Counted in `cx.present`. */
  #counted = false;
  #closed = false;
  #tokens: number;
  #last = Date.now();
  /** Where this client's lines go when another node runs its user. */
  #remote?: RemoteEnd;
  /** Live lines that came while the replay on attach was read, sent after it. */
  #held?: { line: string; msgid?: string }[];
  /**
   * The command being run, in its own async context: its label (labeled-response), which Parley's
   * own answers to it (numerics, FAILs, history) carry, so that every reply, errors included, is
   * told by it; and whether it answers the label itself (an ACK, an echo, the server's reply). A
   * context, not a field: a command's send to the server finishes after the next command began.
   */
  #command = new AsyncLocalStorage<{ label?: string; owned: boolean }>();
  /** Inside one of this client's sends to the server (`sendOn`). */
  #inSend = new AsyncLocalStorage<true>();
  /**
   * This client's sends to the server not done yet, in its order (each chained to the last): its
   * queries apart from the rest, so that what it says does not wait behind its sync of every
   * channel (the connection writes queries after everyone's other lines).
   */
  #sending: Record<SendChain, Promise<void>[]> = { lines: [], queries: [] };

  constructor(
    readonly cx: BouncerContext,
    readonly transport: ClientTransport,
    /** Told once the client is attached (it no longer counts as waiting to register). */
    readonly onAttached: () => void = () => {},
  ) {
    this.#tokens = cx.limits.lineBurst;
  }

  /** Registered without a network (soju.im/bouncer-networks): it manages networks only. */
  control = false;
  /** The network named by BOUNCER BIND before registration. */
  bind?: string;

  get registered(): boolean {
    return !!this.hub || this.control || !!this.#remote;
  }

  /** The nick in numerics: the connection's once attached, else what the client gave. */
  get target(): string {
    return this.hub?.nick ?? (this.nick || "*");
  }

  /** The user, once logged in. */
  get userId(): number | undefined {
    return this.login?.user.id;
  }

  /** The history request's scope (attached sessions only). */
  scope(): HistoryScope {
    const c = this.login!.connection!;
    return {
      userId: this.login!.user.id,
      connection: { id: c.id, connectionId: c.connectionId },
      client: this.login!.identity.client,
      nick: this.target,
    };
  }

  /**
   * Queues a line for the client; `msgid` is the stored message's id when it is one. While the
   * replay on attach is read, live lines wait for it (see `attach`).
   */
  write(line: string, msgid?: string): void {
    const held = this.#held;
    if (!held) return this.#out(line);
    if (held.length < MAX_HELD) return void held.push({ line, msgid });
    // A server that floods while the store is slow: drop the client, as a full socket does.
    this.#held = undefined;
    this.close();
  }

  #out(line: string): void {
    if (!this.#closed && !this.transport.write(line)) this.#closed = true;
  }

  /**
   * Parley's answer to the command being run (history, read markers, search, FAILs): filtered by
   * the client's capabilities, as live lines are. With a label, the answer is one logical message
   * carrying it: the one line, its batch's start, a `labeled-response` batch around several lines,
   * or an ACK when there is nothing. The replay on attach is no answer (`answer` false).
   */
  writeHistory(lines: string[], answer = true): void {
    const prefixes = this.hub?.state.prefixSymbols() ?? "@+";
    const out: IrcMessage[] = [];
    for (const raw of lines) {
      const m = parseMessage(raw);
      if (m) out.push(m);
    }
    const running = this.#command.getStore();
    const label = answer && this.caps.has("labeled-response") ? running?.label : undefined;
    if (answer && running) running.label = undefined; // answered
    if (label) {
      if (!out.length) return this.reply("ACK", [], label);
      const wrap = out.length > 1 &&
        !(out[0].command === "BATCH" && out[0].params[0]?.startsWith("+"));
      if (wrap && this.caps.has("batch")) {
        const id = `l${(++labeledBatches).toString(36)}`;
        for (const m of out) if (!m.tags.has("batch")) m.tags.set("batch", id);
        out.unshift({
          tags: new Map(),
          prefix: SERVER_NAME,
          command: "BATCH",
          params: [`+${id}`, "labeled-response"],
        });
        out.push({ tags: new Map(), prefix: SERVER_NAME, command: "BATCH", params: [`-${id}`] });
      }
      if (!wrap || this.caps.has("batch")) out[0].tags.set("label", label);
    }
    for (const m of out) {
      const line = forClient(this.caps, m, { prefixes, myNick: this.target });
      if (line) this.#out(line);
    }
  }

  /** The MARKREAD line of a channel just joined, for a client that takes read markers. */
  async readMarker(channel: string): Promise<string | undefined> {
    if (!this.caps.has("draft/read-marker") || !this.login?.connection) return undefined;
    const [line] = await this.cx.history.markRead(this.scope(), [channel]);
    return line?.startsWith("MARKREAD ") ? line : undefined;
  }

  /** A reattached channel's lines, as if just joined. */
  channelBurst(channel: string): Promise<string[]> {
    if (!this.hub) return Promise.resolve([]);
    return channelBurst(this.hub, this.caps, this.cx.history, this.scope(), channel);
  }

  /** A numeric to this client, from Parley (with the running command's label). */
  numeric(code: string, ...params: string[]): void {
    this.reply(code, [this.target, ...params]);
  }

  /**
   * A line from Parley with a label when the client asked with one (the running command's,
   * unless given): its answer, so the label is used up.
   */
  reply(command: string, params: string[], label?: string): void {
    const running = this.#command.getStore();
    const l = label ?? running?.label;
    if (running) running.label = undefined;
    const tags = l && this.caps.has("labeled-response") ? new Map([["label", l]]) : undefined;
    if (command === "ACK" && !tags) return; // an ACK is only ever an answer to a label
    this.write(formatMessage({ command, params, prefix: SERVER_NAME, tags }));
  }

  /** Sends ERROR and closes. */
  quit(reason: string): void {
    if (this.#closed) return;
    this.#held = undefined; // the ERROR goes before any replay still read
    this.write(formatMessage({ command: "ERROR", params: [`Closing link: ${reason}`] }));
    this.close();
  }

  close(): void {
    this.#closed = true;
    this.transport.close();
  }

  /** Reads the client until it leaves. */
  async run(): Promise<void> {
    const timer = setTimeout(() => {
      if (!this.registered) this.quit("Registration timed out");
    }, this.cx.limits.registerTimeoutMs);
    try {
      for await (const item of this.transport.lines()) {
        if (this.#closed) break;
        await this.#pace("line" in item ? lineCost(item.line) : 1);
        if ("tooLong" in item || clientTagBytes(item.line) > MAX_CLIENT_TAG_DATA) {
          this.numeric(ERR_INPUTTOOLONG, "Input line was too long");
          continue;
        }
        if (this.#remote) {
          this.#remote.send(item.line);
          continue;
        }
        const m = parseMessage(item.line);
        if (!m) continue;
        await this.#handle(m);
      }
    } finally {
      clearTimeout(timer);
      // What the client sent before it left still goes to the server.
      await Promise.all([this.#sending.lines.at(-1), this.#sending.queries.at(-1)]);
      this.detach();
    }
  }

  /** A line takes `cost` tokens; with too few left, reading waits (lines wait in the socket). */
  async #pace(cost: number): Promise<void> {
    const { lineBurst, lineIntervalMs } = this.cx.limits;
    const now = Date.now();
    this.#tokens = Math.min(lineBurst, this.#tokens + (now - this.#last) / lineIntervalMs);
    this.#last = now;
    if (this.#tokens < cost) {
      const wait = (cost - this.#tokens) * lineIntervalMs;
      await new Promise((r) => setTimeout(r, wait));
      this.#tokens = cost;
      this.#last = Date.now();
    }
    this.#tokens -= cost;
  }

  async #handle(m: IrcMessage): Promise<void> {
    const running = { label: labelOf(m), owned: false };
    await this.#command.run(running, () => this.#run(m));
    // A labeled command Parley answered with nothing still gets an ACK.
    if (running.label && !running.owned && !this.#closed) this.reply("ACK", [], running.label);
  }

  /** Whether lines this client sent (not its queries) still wait to go to the server. */
  get linesWaiting(): boolean {
    return this.#sending.lines.length > 0;
  }

  /** The running command's label; the command answers it (with an ACK when nothing else). */
  ownLabel(): string | undefined {
    const running = this.#command.getStore();
    if (!running) return undefined;
    running.owned = true;
    return running.label;
  }

  /**
   * Runs a command's send to the server (`run`: the send, then what its outcome says, with the
   * command's label) behind this client's earlier sends, without holding up its next command:
   * the server's flood control paces the sends, and a PING, a CAP or a CHATHISTORY behind them is
   * answered meanwhile, as a server answers it. Past MAX_SENDING waiting, the command waits for
   * them (and reading the client with it).
   */
  sendOn(run: () => Promise<void>, chain: SendChain = "lines"): Promise<void> {
    if (this.#inSend.getStore()) return run(); // a send that turned into another
    const running = this.#command.getStore();
    const sending = this.#sending[chain];
    const step: Promise<void> = (sending.at(-1) ?? Promise.resolve()).then(() =>
      this.#inSend.run(true, () => running ? this.#command.run(running, run) : run())
    ).catch((err) => {
      log.warn("bouncer: a client's send failed", { error: String(err) });
    }).finally(() => void sending.shift());
    sending.push(step);
    // Past the bound, until the oldest is done.
    return sending.length > MAX_SENDING ? sending[0] : Promise.resolve();
  }

  async #run(m: IrcMessage): Promise<void> {
    // What Parley does not handle goes to the server (a client bound to no network has none).
    const cmd = COMMANDS[m.command] ?? (this.hub ? PASS_THROUGH : undefined);
    if (!cmd) {
      if (this.registered) {
        this.numeric(ERR_UNKNOWNCOMMAND, m.command.slice(0, 32), "Unknown command");
      } else this.numeric(ERR_NOTREGISTERED, "You have not registered");
      return;
    }
    if (!this.registered && !cmd.early) {
      this.numeric(ERR_NOTREGISTERED, "You have not registered");
      return;
    }
    if (m.params.length < (cmd.min ?? 0)) {
      this.numeric(ERR_NEEDMOREPARAMS, m.command, "Not enough parameters");
      return;
    }
    try {
      await cmd.run(this, m);
    } catch (err) {
      log.warn("bouncer command failed", { command: m.command, error: err });
      // The database's own failure is said as such; a client still logging in is let go, to
      // come back by itself, rather than left waiting for a registration that cannot finish.
      const failed = this.cx.store.backend.failure(err);
      this.numeric(ERR_UNKNOWNERROR, m.command, failed?.message ?? "The command could not be run");
      if (failed && !this.registered) this.quit(failed.message);
    }
  }

  /** Registers once NICK, USER, the end of CAP and a login are in; then attaches. */
  async tryRegister(): Promise<void> {
    if (this.registered || !this.nick || !this.username || this.caps.negotiating) return;
    if (this.sasl.active) return;
    if (!this.login) {
      if (this.password === undefined) {
        this.numeric(ERR_PASSWDMISMATCH, "Password required: log in with SASL PLAIN or PASS");
        return this.quit("Password required");
      }
      // PASS alone, or `PASS EMAIL/NETWORK[@CLIENT]:password` when USER does not say who.
      let identity = this.username;
      let password = this.password;
      const colon = password.indexOf(":");
      if (!identity.includes("@") && colon > 0) {
        identity = password.slice(0, colon);
        password = password.slice(colon + 1);
      }
      const result = await authenticate(this.cx, identity, password, this.transport.address);
      if (typeof result === "string") {
        this.numeric(ERR_PASSWDMISMATCH, refusalText(result));
        return this.quit(refusalText(result));
      }
      this.login = result;
    }
    await this.attach();
  }

  /** Joins the connection's live stream and sends the burst. */
  async attach(): Promise<void> {
    const login = this.login!;
    const uid = login.user.id;
    let logins = this.cx.logins.get(uid);
    if (!logins) this.cx.logins.set(uid, logins = new Set());
    logins.add(this);
    // Counted first, then checked: a revocation that came after the login was checked reaches
    // this session either way.
    if (!(await stillValid(this.cx.store, uid, login.credential))) {
      return this.quit("The login is no longer valid");
    }
    if (this.#closed) return;
    if (!login.connection && this.bind) {
      login.connection = await this.cx.store.connections.get(uid, this.bind);
      if (!login.connection) {
        this.write(`FAIL BOUNCER INVALID_NETID BIND ${this.bind} :No such network`);
        return this.quit("No such network");
      }
    }
    const networks = this.caps.has("soju.im/bouncer-networks");
    if (!login.connection && !networks) {
      this.numeric(ERR_PASSWDMISMATCH, "Name the connection: EMAIL/CONNECTION_ID as the username");
      return this.quit("No connection named: log in as EMAIL/CONNECTION_ID");
    }
    // The node that runs the user counts it, with the rest of its clients.
    const owner = login.connection && await this.cx.cluster?.elsewhere(uid);
    if (owner) return this.#handOver(owner);
    const count = this.cx.attached.get(uid) ?? 0;
    if (count >= this.cx.limits.clientsPerUser) return this.quit("Too many clients attached");
    this.cx.attached.set(uid, count + 1);
    // An `AWAY *` before registration holds from the start: counted as there for a moment, the
    // client would end the automatic away it means to leave alone.
    const early = this.earlyAway;
    this.earlyAway = undefined;
    if (early?.[0] === "*") this.absent = true;
    this.#count(!this.absent);
    if (this.caps.has("soju.im/bouncer-networks-notify")) this.cx.networkWatchers.add(this);
    if (!login.connection) {
      this.control = true;
      const extra = serviceTokens(this.cx, this.caps);
      for (const l of controlBurst(this.nick || "*", this.cx.version, extra)) this.write(l);
      this.onAttached();
      log.info("bouncer client attached", { uid, connection: "" });
      return;
    }
    const hub = this.cx.relay.hub(uid, login.connection.connectionId, login.connection.id);
    hub.recordNick = login.connection.nick;
    this.hub = hub;
    await hub.loaded;
    const lines = await burstLines(
      hub,
      this.caps,
      this.cx.history,
      this.scope(),
      this.cx.version,
      serviceTokens(this.cx, this.caps),
    );
    for (const l of lines) this.write(l);
    // A server not registered yet tells what it has on at its welcome (Hub, `followServer`).
    if (hub.conn?.state === "connected") this.followServer(hub.state.caps);
    if (this.caps.has("draft/chathistory")) hub.attach(this);
    else await this.#attachAfterReplay(hub);
    this.onAttached();
    log.info("bouncer client attached", { uid, connection: login.connection.connectionId });
    // A message set before registration is the user's away, for the server to say.
    if (early?.[0]) {
      await this.#handle({ tags: new Map(), prefix: "", command: "AWAY", params: early });
    }
  }

  /**
   * Offers what the connection's server can carry: a capability only its lines give is withdrawn
   * (`CAP DEL`) while the server does not have it on, and offered again (`CAP NEW`) once it has.
   */
  followServer(server: ReadonlySet<string>): void {
    const { removed, added } = this.caps.followServer(server);
    // Not `reply`: no label of the command running now belongs on it.
    for (const [sub, names] of [["DEL", removed], ["NEW", added]] as const) {
      if (!names.length) continue;
      const params = [this.target, sub, names.join(" ")];
      this.write(formatMessage({ command: "CAP", params, prefix: SERVER_NAME }));
    }
  }

  /** The client said `AWAY *` (true) or came back from it (false). */
  setAbsent(absent: boolean): void {
    this.absent = absent;
    if (this.hub || this.control) this.#count(!absent);
  }

  /** Counts this session as there for automatic away, or stops counting it. */
  #count(there: boolean): void {
    const uid = this.login?.user.id;
    if (there === this.#counted || uid === undefined) return;
    this.#counted = there;
    const count = (this.cx.present.get(uid) ?? 0) + (there ? 1 : -1);
    if (count > 0) this.cx.present.set(uid, count);
    else this.cx.present.delete(uid);
  }

  /**
   * Sends what the client missed, attached to the live stream from before the store is read:
   * attached after it, the client would never see a line that came while it was read (too late
   * for the replay, too early for the stream). Live lines wait until the replay is out; a stored
   * one the replay already had is not sent twice.
   */
  async #attachAfterReplay(hub: Hub): Promise<void> {
    const held: { line: string; msgid?: string }[] = this.#held = [];
    hub.attach(this);
    let replayed: string[] = [];
    try {
      const names = [...hub.state.channels.values()].map((c) => c.name);
      replayed = await this.cx.history.replay(this.scope(), names);
    } finally {
      if (this.#held === held) {
        this.#held = undefined;
        this.writeHistory(replayed, false);
        const seen = new Set(replayed.map((l) => parseMessage(l)?.tags.get("msgid")));
        for (const h of held) if (!h.msgid || !seen.has(h.msgid)) this.write(h.line);
      }
    }
  }

  /** Another node runs the user: it runs this session too, and this node carries the lines. */
  #handOver(node: string): void {
    const login = this.login!;
    this.#remote = this.cx.cluster!.open(
      node,
      {
        userId: login.user.id,
        connectionId: login.connection!.connectionId,
        identity: login.identity,
        caps: this.caps.list(),
        capVersion: this.caps.version,
        nick: this.nick,
        username: this.username,
        address: this.transport.address,
        credential: login.credential,
        away: this.earlyAway,
      },
      (line) => this.write(line),
      () => this.close(),
    );
    if (!this.#remote) return this.quit("Too many clients attached");
    this.onAttached();
    log.info("bouncer client handed over", { uid: login.user.id, node });
  }

  detach(): void {
    this.close();
    this.cx.networkWatchers.delete(this);
    const uid = this.login?.user.id;
    const logins = uid === undefined ? undefined : this.cx.logins.get(uid);
    if (logins?.delete(this) && !logins.size) this.cx.logins.delete(uid!);
    if (this.#remote) {
      this.#remote.close();
      this.#remote = undefined;
      return;
    }
    if (!this.hub && !this.control) return;
    if (this.hub) {
      this.hub.detach(this);
      this.cx.history.detach(this.scope()).catch((err) =>
        log.debug("bouncer: history detach failed", { error: String(err) })
      );
    }
    this.control = false;
    this.#count(false);
    const count = (this.cx.attached.get(uid!) ?? 1) - 1;
    if (count > 0) this.cx.attached.set(uid!, count);
    else this.cx.attached.delete(uid!);
    this.hub = undefined;
  }
}

/** A client's sends to the server in order: its queries, and the rest (Session.sendOn). */
type SendChain = "lines" | "queries";

/**
 * A client's sends to the server (of each chain) that may wait for its flood control while the
 * client's next commands run; past them reading the client waits (each holds one line of at most 8 KB).
 */
const MAX_SENDING = 200;

/** Live lines held at most while the replay on attach is read. */
const MAX_HELD = 10_000;

/** What a refused client is told. */
export function refusalText(r: Refusal): string {
  if (r === "throttled") return "Too many failed logins; try again later";
  if (r === "suspended") return "This account is suspended";
  if (r === "no-network") return "No such connection";
  return "Invalid email or password";
}
