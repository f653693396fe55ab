/**
 * The IRC manager runs connections: it owns every live one, connects them in turns per host
 * (spaced out, so a restart does not flood a network), reconnects them, publishes their state,
 * runs what the user sends, and stops them at shutdown. What users do to their connections
 * (create, update, remove, and the checks before) is the connection service's
 * (`irc/connection_service.ts`), which tells this module what the stored records now want.
 */
import type { Config } from "../config.ts";
import { invalid, missing, upstream } from "../lib/errors.ts";
import type { EventBus } from "../lib/bus.ts";
import { log } from "../lib/log.ts";
import type { ConnectionRecord } from "../store/connections.ts";
import { channelKey } from "../store/conversations.ts";
import type { WantedState } from "../protocol/resources.ts";
import type { Store } from "../store/mod.ts";
import type { ProfileRecord } from "../store/profiles.ts";
import { type CommandResult, runCommand } from "./chat/commands.ts";
import { type ConnectionListener, IrcConnection, SendError } from "./engine/connection.ts";
import { hostId } from "./host_id.ts";
import { attachInbound, type Serial, serial } from "./chat/inbound/mod.ts";
import type { Outlet } from "./engine/outlet.ts";
import { conversationFor, isListed, recordMessage } from "./chat/record.ts";
import { NOT_CONNECTED, publishFrozen } from "./chat/frozen.ts";
import { serverNotice, stateMessage } from "./chat/state_message.ts";
import { pasteIfLong } from "./chat/paste.ts";
import { ircLower } from "../lib/casefold.ts";
import { connectionInfo, DEFAULT_SERVICE_ACCOUNTS, infoStateEvent } from "./resources.ts";
import { mayReachTarget } from "./trust.ts";
import { type Clock, realClock } from "../lib/clock.ts";
import { clientCertificate } from "./certificate.ts";
import { webircFor } from "./webirc.ts";
import { IdentTable } from "./identd.ts";
import { parseIrcUrl, targetKey, withNick } from "./url.ts";
import { connectGap } from "./engine/backoff.ts";
import { type IrcLine, ircLine } from "./protocol/message.ts";
import type { FirstConversation, IrcControl, IrcStats, LiveView, SendOptions } from "./control.ts";
import { patientStore } from "../store/patient.ts";

/** What the manager is built from. */
interface IrcManagerDeps {
  config: Config;
  store: Store;
  bus: EventBus;
  /** Sent as the CTCP VERSION answer. */
  version?: string;
  /** Paces the connects to a host (default the process's; a test's moves by hand). */
  clock?: Clock;
}

/** How long a wanted connect may take before `attempted` answers with the state as it is. */
const ATTEMPT_WAIT_MS = 10_000;
/**
 * At shutdown, how long the connections' last lines may take to be stored: lines waiting for a
 * database that does not answer are given up after it.
 */
const STOP_DRAIN_MS = 5_000;

/**
 * Connects to one host, spaced out and bounded: the last one's time, how many are registering
 * now, and who waits for a turn.
 */
interface HostTurns {
  host: string;
  last: number;
  /** The gap after `last` (the connect delay, jittered). */
  gap: number;
  /**
   * Connections given a turn that have not yet registered or failed. A server slower than the
   * pace (one busy with thousands of joins, or after a restart of every node) is not sent more
   * registrations than it can take: past its listen queue connects time out, and each one that
   * does comes back only after its backoff.
   */
  registering: number;
  waiting: IrcConnection[];
  timer?: unknown;
  /** The host's profile being read for `skip_queue`, shared by the waits that begin meanwhile. */
  profile?: Promise<ProfileRecord | undefined>;
}

/** The bytes of the channels and keys of one JOIN line, well within IRC's 512 with its command. */
const JOIN_LINE_BYTES = 400;

/**
 * `JOIN #a,#b,#c keyA,keyB` lines of at most JOIN_LINE_BYTES each: several channels a line, those
 * with a key (`channelKey`'s rules; another is sent without) first, since IRC pairs the keys with
 * the channels by their place in the line.
 *
 * @internal test seam
 */
export function joinLines(channels: readonly { name: string; key?: string }[]): IrcLine[] {
  const withKey = channels.map((c) => ({ name: c.name, key: channelKey(c.key) }));
  const ordered = [...withKey.filter((c) => c.key), ...withKey.filter((c) => !c.key)];
  const bytes = (s: string) => new TextEncoder().encode(s).length;
  const lines: IrcLine[] = [];
  let names: string[] = [];
  let keys: string[] = [];
  const line = () => ircLine("JOIN", names.join(","), ...(keys.length ? [keys.join(",")] : []));
  for (const { name, key } of ordered) {
    const size = bytes([...names, name].join(",")) +
      (key || keys.length ? 1 + bytes([...keys, ...(key ? [key] : [])].join(",")) : 0);
    if (names.length && size > JOIN_LINE_BYTES) {
      lines.push(line());
      names = [];
      keys = [];
    }
    names.push(name);
    if (key) keys.push(key);
  }
  if (names.length) lines.push(line());
  return lines;
}

/** Owns the IRC connections of every user this process runs. */
export class IrcManager implements IrcControl {
  #deps: IrcManagerDeps;
  /**
   * The store as what IRC brings sees it: a call that meets a database not answering waits for it
   * (store/patient.ts), so incoming lines and a registration's rejoin are not lost with it.
   */
  #patient: IrcManagerDeps["store"];
  #clock: Clock;
  #live = new Map<number, IrcConnection>();
  #serials = new Map<number, Serial>();
  #hosts = new Map<string, HostTurns>();
  /** The turn each registering connection holds, given back when it registered or failed. */
  #registering = new Map<IrcConnection, HostTurns>();
  /** Which of this node's connections registered as whom, for the ident server (identd.ts). */
  readonly ident = new IdentTable();
  #stopped = false;
  #listener: ConnectionListener;
  #outlet: Outlet | undefined;
  /** Callers waiting for a connection's next state change (updateConnection waits for it). */
  #waiters = new Map<IrcConnection, Set<() => void>>();
  /** The state last published per connection, to tell a change from an info update. */
  #lastState = new WeakMap<IrcConnection, string>();

  constructor(deps: IrcManagerDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? realClock;
    this.#patient = patientStore(deps.store);
    const inbound = { ...deps, store: this.#patient };
    this.#listener = {
      changed: (conn) => {
        this.#turnDone(conn);
        this.#publishState(conn);
        const waiting = this.#waiters.get(conn);
        if (waiting) { for (const wake of waiting) wake(); }
      },
      attach: (conn, client) =>
        attachInbound(inbound, conn, client, this.#serial(conn), () => this.#outlet),
      registered: (conn) => this.#serial(conn)(() => this.#afterRegistration(conn)),
      retry: (conn) => this.#awaitTurn(conn),
      gone: (conn) => this.#outlet?.gone(conn),
      wrote: (conn, target, origin) => this.#outlet?.wrote?.(conn, target, origin),
      asked: (conn, line) => this.#outlet?.asked?.(conn, line),
      clientsAttached: (conn) => this.#outlet?.attached?.(conn) ?? false,
      nickTaken: (conn, nick) => {
        this.#keepNick(conn.record, nick).catch((err) => {
          log.warn("nick not kept", { connection: conn.id, error: String(err) });
        });
      },
    };
  }

  /**
   * Where every connection's lines go once handled (the bouncer's relay), from now on; undefined
   * for nowhere. Set when the listener starts, before the connections do.
   */
  setOutlet(outlet: Outlet | undefined): void {
    this.#outlet = outlet;
    outlet?.bind?.((id) => this.#live.get(id));
  }

  #serial(conn: IrcConnection): Serial {
    let s = this.#serials.get(conn.record.id);
    if (!s) this.#serials.set(conn.record.id, s = serial(conn.id));
    return s;
  }

  /** Connects every connection whose wanted state is `connected` (at start). */
  async start(): Promise<void> {
    this.#startAll(await this.#deps.store.connections.wanted());
  }

  /** Connects a user's connections that are wanted connected (this node took the user over). */
  async startUser(userId: number): Promise<void> {
    this.#stopped = false;
    await this.#startWanted(userId);
  }

  /** Connects a user's connections whose wanted state is `connected`. */
  async #startWanted(userId: number): Promise<void> {
    const records = await this.#deps.store.connections.list(userId);
    this.#startAll(records.filter((r) => r.wantedState === "connected"));
  }

  /**
   * Stops a user's connections at once and forgets them: this node no longer runs the user
   * (another one may already be connecting them).
   */
  async stopUser(userId: number, message = "Moving to another Parley node."): Promise<void> {
    const mine = [...this.#live.values()].filter((c) => c.userId === userId);
    await Promise.all(mine.map((c) => this.drop(c.record, message)));
  }

  /** This node's connections by state and their send queues (metrics). */
  stats(): IrcStats {
    const out: IrcStats = { byState: {}, sendQueued: 0, sendQueueMax: 0 };
    for (const conn of this.#live.values()) {
      out.byState[conn.state] = (out.byState[conn.state] ?? 0) + 1;
      const queued = conn.queued;
      out.sendQueued += queued;
      if (queued > out.sendQueueMax) out.sendQueueMax = queued;
    }
    return out;
  }

  /** The users this node runs connections for. */
  users(): Set<number> {
    return new Set([...this.#live.values()].map((c) => c.userId));
  }

  #startAll(wanted: ConnectionRecord[]): void {
    for (const record of wanted) {
      try {
        this.#awaitTurn(this.#connection(record));
      } catch (err) {
        // One unusable stored URL must not keep the others down.
        log.error("irc connection not started", { connection: record.connectionId, error: err });
      }
    }
    if (wanted.length) log.info("irc reconnecting", { connections: wanted.length });
  }

  /** Sends QUIT on every connection and waits (briefly) for them to close. */
  async stop(message = "Parley is shutting down."): Promise<void> {
    this.#stopped = true;
    for (const q of this.#hosts.values()) this.#clock.cancel(q.timer);
    this.#hosts.clear();
    await Promise.all([...this.#live.values()].map((c) => c.stop(message)));
    for (const c of this.#live.values()) c.dispose();
    this.#live.clear();
    // What the connections said on their way down is stored before the store closes.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drained = await Promise.race([
      Promise.all([...this.#serials.values()].map((s) => s.drained())).then(() => true),
      // A stuck step (a database that does not answer): stop anyway, and say what is lost.
      new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), STOP_DRAIN_MS)),
    ]);
    clearTimeout(timer);
    if (!drained) {
      const left = [...this.#serials.values()].reduce((n, s) => n + s.backlog.size, 0);
      // Lines, and the state notices of the connections' stop.
      log.warn("stopped with IRC events not stored", { events: left, waited_ms: STOP_DRAIN_MS });
    }
  }

  #connection(record: ConnectionRecord): IrcConnection {
    let conn = this.#live.get(record.id);
    if (conn) {
      conn.setRecord(record);
      return conn;
    }
    conn = new IrcConnection(record, {
      listener: this.#listener,
      version: this.#deps.version ? `Parley ${this.#deps.version}` : "Parley",
      timing: this.#deps.config.ircTiming,
      ident: this.ident,
    });
    this.#live.set(record.id, conn);
    return conn;
  }

  /** Has a connection wait for its turn to connect to its host; connects at once when it may. */
  #awaitTurn(conn: IrcConnection): void {
    if (this.#stopped || conn.state === "connected" || conn.state === "connecting") return;
    const host = conn.url.host;
    let q = this.#hosts.get(host);
    if (!q) this.#hosts.set(host, q = { host, last: 0, gap: 0, registering: 0, waiting: [] });
    if (!q.waiting.includes(conn)) q.waiting.push(conn);
    conn.awaitTurn();
    this.#admit(q);
    if (q.waiting.includes(conn)) void this.#skipTurn(conn, q);
  }

  /**
   * A host whose profile says `skip_queue` (an ircd of one's own, that takes every connect at
   * once) connects a waiting connection now, past the pace and the bound; in line meanwhile, so
   * the order of the others holds. Read at each wait, so a profile changed on any node counts from
   * the next connect; the waits that begin while a read is under way (thousands at a start) share
   * it.
   */
  async #skipTurn(conn: IrcConnection, q: HostTurns): Promise<void> {
    if (!q.profile) {
      const read = this.#deps.store.profiles.get(hostId(q.host)).catch((err) => {
        log.debug("profile not read; waiting for the turn", { host: q.host, error: String(err) });
        return undefined;
      });
      q.profile = read;
      void read.finally(() => {
        if (q.profile === read) q.profile = undefined;
      });
    }
    const profile = await q.profile;
    if (!profile?.skipQueue || this.#stopped || conn.state !== "queued") return;
    if (!q.waiting.includes(conn)) return; // its turn came meanwhile
    q.waiting = q.waiting.filter((c) => c !== conn);
    this.#connect(conn, profile).catch((err) => {
      log.warn("irc connect failed", { connection: conn.id, error: err });
    });
  }

  #admit(q: HostTurns): void {
    if (q.timer !== undefined) return;
    while (q.waiting.length && q.registering < this.#deps.config.connectConcurrency) {
      const wait = q.last + q.gap - this.#clock.now();
      if (wait > 0) {
        q.timer = this.#clock.after(() => {
          q.timer = undefined;
          this.#admit(q);
        }, wait);
        return;
      }
      const conn = q.waiting.shift()!;
      if (conn.state !== "queued") continue; // stopped while waiting
      q.last = this.#clock.now();
      q.gap = connectGap(this.#deps.config.connectDelay);
      q.registering++;
      this.#registering.set(conn, q);
      this.#connect(conn).catch((err) => {
        log.warn("irc connect failed", { connection: conn.id, error: err });
        this.#turnDone(conn, true);
      });
    }
    // The host's entry stays, so its `last` still spaces out the next connect.
  }

  /**
   * Opens the connection with its profile's burst, services and WEBIRC, its reach, and its client
   * certificate.
   */
  async #connect(conn: IrcConnection, read?: ProfileRecord): Promise<void> {
    const profile = await this.#applyProfile(conn, read);
    const allowPrivate = await this.#mayReachPrivate(conn);
    // Made before its first use, even on plain text, so the fingerprint is there to register.
    const certificate = await clientCertificate(this.#deps.store, conn.record);
    const webirc = await webircFor(
      this.#deps.store.sessions,
      conn.userId,
      profile?.webircPassword ?? "",
    );
    if (conn.state !== "queued") return; // stopped meanwhile
    conn.connect({ allowPrivate, certificate, webirc });
  }

  /**
   * Gives the connection its host profile's burst and services (the defaults without one);
   * returns the profile, for what the connect itself needs of it.
   */
  async #applyProfile(conn: IrcConnection, read?: ProfileRecord) {
    const profile = read ?? await this.#deps.store.profiles.get(hostId(conn.url.host));
    if (profile) {
      conn.setBurst(Math.max(this.#deps.config.ircTiming.sendBurst, profile.maxBulkMessageSize));
    }
    conn.serviceAccounts = new Set(
      (profile?.serviceAccounts ?? DEFAULT_SERVICE_ACCOUNTS).map((n) => ircLower(n)),
    );
    return profile;
  }

  /** Whether this connect may reach a loopback, private or link-local address (trust.ts). */
  #mayReachPrivate(conn: IrcConnection): Promise<boolean> {
    return mayReachTarget(this.#deps, conn.userId, conn.url);
  }

  /** A connection given a turn registered, failed or was stopped: the next one may go. */
  #turnDone(conn: IrcConnection, failed = false): void {
    if (!failed && (conn.state === "queued" || conn.state === "connecting")) return;
    const q = this.#registering.get(conn);
    if (!q) return;
    this.#registering.delete(conn);
    q.registering--;
    this.#admit(q);
  }

  #leaveTurns(conn: IrcConnection): void {
    const q = this.#hosts.get(conn.url.host);
    if (q) q.waiting = q.waiting.filter((c) => c !== conn);
  }

  async #afterRegistration(conn: IrcConnection): Promise<void> {
    const conversations = await this.#patient.conversations.listForConnection(conn.record.id, {
      unread: false,
    });
    const channels = conversations.filter((c) => c.joined && conn.isChannel(c.name));
    conn.rejoining?.(channels.map((c) => c.name));
    for (const command of conn.record.onConnectCommands) {
      try {
        await this.#run(conn.record, "", command.startsWith("/") ? command : `/quote ${command}`);
      } catch (err) {
        log.warn("on-connect command failed", { connection: conn.id, error: String(err) });
      }
    }
    // Several channels per JOIN line, so rejoining many does not wait on the token bucket; each
    // with the key Parley keeps for it (irc/chat/inbound/channel.ts).
    for (const line of joinLines(channels)) {
      await conn.send(line).catch((err) => {
        // The channels, not the line: its keys are the channels' secrets.
        const names = line.split(" ")[1];
        log.debug("rejoin not sent", { connection: conn.id, channels: names, error: String(err) });
      });
    }
  }

  /**
   * Publishes a connection's state as Convos does: a `connection` event when the state changed
   * (with a `message`, stored as a notice in the server conversation too), its `info`, and
   * `frozen` events for its conversations when it goes up or down.
   */
  #publishState(conn: IrcConnection): void {
    const { bus } = this.#deps;
    const prev = this.#lastState.get(conn) ?? "disconnected";
    this.#lastState.set(conn, conn.state);
    const changed = prev !== conn.state;
    const message = changed ? stateMessage(conn) : undefined;
    const ev = {
      event: "state" as const,
      type: "connection" as const,
      connection_id: conn.id,
      state: conn.state,
      info: connectionInfo(conn),
      ...(message ? { message } : {}),
    };
    const run = this.#serial(conn);
    // What IRC brought (a state, its notice) waits out a database not answering, as lines do.
    const patient = { ...this.#deps, store: this.#patient };
    // In the connection's serial run, behind the stored notices of earlier states: a store that
    // answers later (PostgreSQL) must not reorder "Connecting to" and "Connected to". Only a
    // change is a `connection` event: a client shows each as a line, and an unchanged state with
    // new info (the server's network name, a new nick) is the `info` event below.
    if (changed) run(() => Promise.resolve(bus.publish(conn.userId, ev)));
    if (message) {
      run(async () => void await recordMessage(patient, conn, serverNotice(conn, message)));
    }
    if (changed && conn.state === "connected") {
      // The server's 001 greeting, which irc/chat/inbound/ held back until this announcement.
      run(async () => {
        const welcome = conn.welcome;
        conn.welcome = undefined;
        if (!welcome?.text) return;
        await recordMessage(patient, conn, {
          ...serverNotice(conn, welcome.text),
          ts: welcome.ts,
        });
      });
    }
    run(() => {
      bus.publish(conn.userId, infoStateEvent(conn));
      return Promise.resolve();
    });
    const up = conn.state === "connected";
    if (changed && (up || prev === "connected")) {
      run(async () => {
        const all = await patient.store.conversations.listForConnection(conn.record.id);
        // Channels thaw when joined again (irc/chat/inbound/); private conversations at once.
        const affected = all.filter((c) => isListed(c) && (!up || !conn.isChannel(c.name)));
        publishFrozen(bus, conn.userId, affected, up ? "" : NOT_CONNECTED);
      });
    }
  }

  /** The live connection of a stored one, if it has been started. */
  live(connectionRowId: number): IrcConnection | undefined {
    return this.#live.get(connectionRowId);
  }

  /**
   * Brings the live connection in line with its stored record: down when it is wanted down,
   * restarted (with `restart` as the QUIT message) after its settings changed, else up if down.
   */
  async apply(record: ConnectionRecord, restart?: string): Promise<IrcConnection> {
    const conn = this.#connection(record);
    if (record.wantedState === "disconnected") {
      this.#leaveTurns(conn);
      await conn.stop("Disconnected by the user.");
    } else if (restart) {
      this.#leaveTurns(conn);
      await conn.stop(restart);
      this.#awaitTurn(conn);
    } else if (conn.state === "disconnected" || conn.state === "disconnecting") {
      this.#awaitTurn(conn);
    }
    return conn;
  }

  /**
   * Waits (10 s at most) for a wanted connect to succeed or fail; a failed one throws `upstream`
   * with the reason, at Convos's path `/wanted_state` (Convos answers it with a 424).
   */
  async attempted(conn: IrcConnection): Promise<void> {
    await this.#attempted(conn, ATTEMPT_WAIT_MS);
    if (conn.state === "disconnected") {
      throw upstream(String(conn.info.reason ?? "Could not connect."), "/wanted_state");
    }
  }

  /** Wants a connection up or down, stores it, and (up) waits for the attempt as `attempted`. */
  async #setWanted(record: ConnectionRecord, wanted: WantedState): Promise<void> {
    const fresh = await this.#deps.store.connections.update(record.id, { wantedState: wanted });
    if (!fresh) throw missing("No such connection.");
    const conn = await this.apply(fresh);
    if (wanted === "connected") await this.attempted(conn);
  }

  /** Resolves once the connection is connected or down again, or after `ms` at most. */
  #attempted(conn: IrcConnection, ms: number): Promise<void> {
    const settled = () => conn.state === "connected" || conn.state === "disconnected";
    if (settled()) return Promise.resolve();
    return new Promise((resolve) => {
      let waiting = this.#waiters.get(conn);
      if (!waiting) this.#waiters.set(conn, waiting = new Set());
      const done = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (!waiting.size) this.#waiters.delete(conn);
        resolve();
      };
      const wake = () => settled() && done();
      const timer = setTimeout(done, ms);
      waiting.add(wake);
    });
  }

  /** Stops a connection for good and forgets it (before its record is deleted). */
  async drop(record: ConnectionRecord, message = "Connection removed."): Promise<void> {
    const conn = this.#live.get(record.id);
    if (!conn) return;
    this.#leaveTurns(conn);
    await conn.stop(message);
    conn.dispose();
    this.#live.delete(record.id);
    // What the connection received before it stopped is recorded before its rows can go: a
    // removal right after would otherwise have the writer append to deleted conversations.
    await this.#serials.get(record.id)?.drained();
    this.#serials.delete(record.id);
    await this.#deps.store.messages.flush();
  }

  /** Stops every connection of a user (before the user is deleted). */
  async userDeleted(userId: number): Promise<void> {
    for (const record of await this.#deps.store.connections.list(userId)) await this.drop(record);
  }

  /** Stops a suspended user's connections, or connects those wanted connected once back. */
  async userSuspended(userId: number, suspended: boolean): Promise<void> {
    if (suspended) await this.stopUser(userId, "Account suspended.");
    else await this.#startWanted(userId);
  }

  /**
   * Sends what the user typed in a conversation: a plain message or a slash command. Throws a
   * DomainError: not_found for an unknown connection, invalid (at `/body/message`, the send
   * routes' input) for a bad command or a connection that is down.
   */
  async send(
    userId: number,
    connectionId: string,
    conversationId: string,
    message: string,
    opts: SendOptions = {},
  ): Promise<CommandResult> {
    const record = await this.#deps.store.connections.get(userId, connectionId);
    if (!record) throw missing("No such connection.");
    try {
      await this.#openPrivate(record, conversationId, message);
      return await this.#run(record, ircLower(conversationId), message, opts);
    } catch (err) {
      // Not written (the connection closed, or the line was refused): never answer "Sent".
      if (err instanceof SendError) throw invalid(err.message, "/body/message");
      throw err;
    }
  }

  /**
   * As Convos: a message to a nick with no conversation yet opens the private conversation
   * (named as the user spelt the nick) and is sent there. Channels still need a join first.
   */
  async #openPrivate(record: ConnectionRecord, name: string, message: string): Promise<void> {
    const conn = this.#live.get(record.id);
    if (!conn || name === "" || conn.isChannel(name) || message.startsWith("/")) return;
    if (await this.#deps.store.conversations.get(record.id, ircLower(name))) return;
    await conversationFor(this.#deps, conn, name);
  }

  async #run(
    record: ConnectionRecord,
    conversationId: string,
    message: string,
    { tags, origin, background, relayed, written }: SendOptions = {},
  ): Promise<CommandResult> {
    const { store } = this.#deps;
    const conversation = await store.conversations.get(record.id, conversationId);
    if (conversationId !== "" && !conversation && !message.startsWith("/")) {
      throw missing("No such conversation.");
    }
    const conn = this.#live.get(record.id);
    const userId = record.userId;
    return runCommand({
      deps: this.#deps,
      record,
      conn,
      conversationId,
      conversation,
      tags,
      origin,
      background,
      relayed,
      written,
      paste: (text) => pasteIfLong(this.#deps, userId, parseIrcUrl(record.url).host, text),
      control: {
        connect: () => this.#setWanted(record, "connected"),
        disconnect: () => this.#setWanted(record, "disconnected"),
        reconnect: async () => {
          const fresh = (await store.connections.update(record.id, { wantedState: "connected" }))!;
          const c = this.#connection(fresh);
          this.#leaveTurns(c);
          await c.stop("Reconnecting.");
          this.#awaitTurn(c);
        },
        setNick: (nick) => this.#keepNick(record, nick),
      },
    }, message);
  }

  /** Stores the nick the user wants on a connection: the one regained and used at each connect. */
  async #keepNick(record: ConnectionRecord, nick: string): Promise<void> {
    // A URL that names a nick names this one from now on (the settings show it, a save keeps
    // it); one that names none keeps it beside. Either way it is the connection's target.
    const url = parseIrcUrl(record.url);
    const named = url.nick && url.nick !== nick ? withNick(record.url, nick) : undefined;
    const target = targetKey({ ...url, nick });
    await this.#deps.store.connections.update(record.id, { nick, target, url: named });
    const c = this.#live.get(record.id);
    if (c) {
      c.wantedNick = nick;
      c.record.nick = nick;
      if (named) c.record.url = named;
    }
  }

  /** The live state of a connection (for tests and the bot). */
  state(connectionRowId: number): string {
    return this.#live.get(connectionRowId)?.state ?? "disconnected";
  }

  view(record: ConnectionRecord): Promise<LiveView> {
    const conn = this.#live.get(record.id);
    return Promise.resolve({
      state: conn?.state ?? "disconnected",
      info: connectionInfo(conn, record),
    });
  }

  states(userId: number): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    for (const [id, conn] of this.#live) if (conn.userId === userId) out.set(id, conn.state);
    return Promise.resolve(out);
  }

  async created(
    record: ConnectionRecord,
    conversations: readonly FirstConversation[],
  ): Promise<void> {
    const conn = this.#connection(record);
    // The first conversation (body or URL path) is joined, or opened, once connected; the URL's
    // key is kept with its channel, so the rejoin after registration (and every later one)
    // sends it.
    for (const { name, key } of conversations) {
      if (!name) continue;
      const conv = await conversationFor(this.#deps, conn, name);
      if (conv && conn.isChannel(name)) {
        await this.#deps.store.conversations.setJoined(conv.id, true);
        if (key) await this.#deps.store.conversations.setKey(conv.id, key);
        // Already registered (a cluster node took the user over meanwhile and connected it):
        // the rejoin after registration has run, so join now.
        if (conn.state === "connected") {
          await conn.send(joinLines([{ name, key }])[0]).catch((err) => {
            log.debug("join not sent", { connection: conn.id, channel: name, error: String(err) });
          });
        }
      }
    }
    if (record.wantedState === "connected") this.#awaitTurn(conn);
  }

  async applyRecord(
    record: ConnectionRecord,
    restart: string | undefined,
    wait: boolean,
  ): Promise<void> {
    const conn = await this.apply(record, restart);
    if (wait) await this.attempted(conn);
  }
}
