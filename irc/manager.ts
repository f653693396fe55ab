/**
 * The IRC manager: owns every live connection, connects them through a per-host queue, runs what
 * the user sends, and stops them at shutdown. Routes and the /events socket call only this.
 */
import type { Config } from "../config.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import type { EventBus } from "../lib/bus.ts";
import { log } from "../lib/log.ts";
import type { ConnectionRecord, WantedState } from "../store/connections.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import type { ServerSettings } from "../store/settings.ts";
import { type CommandResult, runCommand } from "./commands.ts";
import { type ConnectionListener, IrcConnection, SendError } from "./connection.ts";
import { hostId, hostShortName } from "./host_id.ts";
import { attachInbound, type Serial, serial } from "./inbound.ts";
import { conversationFor, isListed, recordMessage } from "./record.ts";
import { NOT_CONNECTED, publishFrozen } from "./frozen.ts";
import { serverNotice, stateMessage } from "./state_message.ts";
import { literalClass, refusal } from "./target.ts";
import { pasteIfLong } from "./paste.ts";
import { ircLower } from "./casefold.ts";
import { newConnectionId, nickFromEmail, parseIrcUrl, publicUrl, sameTarget } from "./url.ts";

/** What the manager is built from. */
export interface IrcManagerDeps {
  config: Config;
  store: Store;
  bus: EventBus;
  /** Sent as the CTCP VERSION answer. */
  version?: string;
}

/** The Connection resource, as the API returns it. */
export interface ConnectionJson {
  connection_id: string;
  name: string;
  url: string;
  info: Record<string, unknown>;
  on_connect_commands: string[];
  /** Nicks of the network's services (from the host's connection profile). */
  service_accounts: string[];
  state: string;
  wanted_state: WantedState;
}

/** How long updateConnection waits for a connect attempt before answering with the state. */
const ATTEMPT_WAIT_MS = 10_000;

/** Input of createConnection (validated by the route). */
export interface CreateConnection {
  url: string;
  conversation_id?: string;
  on_connect_commands?: string[];
  wanted_state?: WantedState;
}

/** Input of updateConnection (validated by the route). */
export interface UpdateConnection {
  url?: string;
  on_connect_commands?: string[];
  wanted_state?: WantedState;
}

interface HostQueue {
  last: number;
  waiting: IrcConnection[];
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Users whose connections the operator vouches for: admins, and the bot (its connections come
 * from bot.json). Limits meant for ordinary users do not apply to them.
 */
export function trusted(user: UserRecord): boolean {
  return user.roles.includes("admin") || user.roles.includes("bot");
}

/** `JOIN #a,#b,...` lines of at most ~400 bytes each. */
export function joinLines(channels: string[]): string[] {
  const lines: string[] = [];
  let cur: string[] = [];
  for (const name of channels) {
    if (cur.length && [...cur, name].join(",").length > 400) {
      lines.push(`JOIN ${cur.join(",")}`);
      cur = [];
    }
    cur.push(name);
  }
  if (cur.length) lines.push(`JOIN ${cur.join(",")}`);
  return lines;
}

/** Owns all IRC connections of all users. */
export class IrcManager {
  #deps: IrcManagerDeps;
  #live = new Map<number, IrcConnection>();
  #serials = new Map<number, Serial>();
  #hosts = new Map<string, HostQueue>();
  #stopped = false;
  #listener: ConnectionListener;
  /** Callers waiting for a connection's next state change (updateConnection waits for it). */
  #waiters = new Map<IrcConnection, Set<() => void>>();
  /** The state last published per connection, to tell a change from an info update. */
  #lastState = new WeakMap<IrcConnection, string>();

  constructor(deps: IrcManagerDeps) {
    this.#deps = deps;
    this.#listener = {
      changed: (conn) => {
        this.#publishState(conn);
        const waiting = this.#waiters.get(conn);
        if (waiting) { for (const wake of waiting) wake(); }
      },
      attach: (conn, client) => attachInbound(deps, conn, client, this.#serial(conn)),
      registered: (conn) => this.#serial(conn)(() => this.#afterRegistration(conn)),
      retry: (conn) => this.#enqueue(conn),
    };
  }

  #serial(conn: IrcConnection): Serial {
    let s = this.#serials.get(conn.record.id);
    if (!s) this.#serials.set(conn.record.id, s = serial(conn.id));
    return s;
  }

  /** Connects every connection whose wanted state is `connected` (at start). */
  async start(): Promise<void> {
    const wanted = await this.#deps.store.connections.wanted();
    for (const record of wanted) {
      try {
        this.#enqueue(this.#connection(record));
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
    for (const q of this.#hosts.values()) clearTimeout(q.timer);
    this.#hosts.clear();
    await Promise.all([...this.#live.values()].map((c) => c.stop(message)));
    for (const c of this.#live.values()) c.dispose();
    this.#live.clear();
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
    });
    this.#live.set(record.id, conn);
    return conn;
  }

  /** Puts a connection in its host's connect queue; connects at once when the host allows. */
  #enqueue(conn: IrcConnection): void {
    if (this.#stopped || conn.state === "connected" || conn.state === "connecting") return;
    const host = conn.url.host;
    let q = this.#hosts.get(host);
    if (!q) this.#hosts.set(host, q = { last: 0, waiting: [] });
    if (!q.waiting.includes(conn)) q.waiting.push(conn);
    conn.queue();
    this.#drain(host, q);
  }

  #drain(host: string, q: HostQueue): void {
    if (q.timer !== undefined) return;
    while (q.waiting.length) {
      const wait = q.last + this.#deps.config.connectDelay - Date.now();
      if (wait > 0) {
        q.timer = setTimeout(() => {
          q.timer = undefined;
          this.#drain(host, q);
        }, wait);
        return;
      }
      const conn = q.waiting.shift()!;
      if (conn.state !== "queued") continue; // stopped while waiting
      q.last = Date.now();
      this.#applyProfile(conn).then(() => this.#mayReachPrivate(conn.userId)).then((allowPrivate) =>
        conn.connect({ allowPrivate })
      ).catch((err) => log.error("irc connect failed", { connection: conn.id, error: err }));
    }
    // The host's entry stays, so its `last` still spaces out the next connect.
  }

  /** Sets the send queue's burst from the host's connection profile, if there is one. */
  async #applyProfile(conn: IrcConnection): Promise<void> {
    const profile = await this.#deps.store.profiles.get(hostId(conn.url.host));
    if (profile) conn.setBurst(Math.max(this.#deps.config.ircTiming.sendBurst, profile.maxBulkMessageSize));
  }

  #removeFromQueue(conn: IrcConnection): void {
    const q = this.#hosts.get(conn.url.host);
    if (q) q.waiting = q.waiting.filter((c) => c !== conn);
  }

  async #afterRegistration(conn: IrcConnection): Promise<void> {
    const { store } = this.#deps;
    for (const command of conn.record.onConnectCommands) {
      try {
        await this.#run(conn.record, "", command.startsWith("/") ? command : `/quote ${command}`);
      } catch (err) {
        log.warn("on-connect command failed", { connection: conn.id, error: String(err) });
      }
    }
    const conversations = await store.conversations.listForConnection(conn.record.id);
    const channels = conversations.filter((c) => c.joined && conn.isChannel(c.name));
    // Several channels per JOIN line, so rejoining many does not wait on the send queue.
    for (const line of joinLines(channels.map((c) => c.name))) {
      await conn.enqueue(line).catch(() => {});
    }
  }

  /**
   * Publishes a connection's state as Convos does: a `connection` event (with a `message` when
   * the state changed, stored as a notice in the server conversation too), its `info`, and
   * `frozen` events for its conversations when it goes up or down.
   */
  #publishState(conn: IrcConnection): void {
    const { bus } = this.#deps;
    const prev = this.#lastState.get(conn) ?? "disconnected";
    this.#lastState.set(conn, conn.state);
    const changed = prev !== conn.state;
    const message = changed ? stateMessage(conn) : undefined;
    bus.publish(conn.userId, {
      event: "state",
      type: "connection",
      connection_id: conn.id,
      state: conn.state,
      info: this.#info(conn),
      ...(message ? { message } : {}),
    });
    const run = this.#serial(conn);
    // "Connected to" is stored by irc/inbound.ts, just before the server's welcome.
    if (message && conn.state !== "connected") {
      run(() => recordMessage(this.#deps, conn, serverNotice(conn, message)));
    }
    run(() => {
      bus.publish(conn.userId, {
        ...this.#info(conn),
        event: "state",
        type: "info",
        connection_id: conn.id,
      });
      return Promise.resolve();
    });
    const up = conn.state === "connected";
    if (changed && (up || prev === "connected")) {
      run(async () => {
        const all = await this.#deps.store.conversations.listForConnection(conn.record.id);
        // Channels thaw when joined again (irc/inbound.ts); private conversations at once.
        const affected = all.filter((c) => isListed(c) && (!up || !conn.isChannel(c.name)));
        publishFrozen(bus, conn.userId, affected, up ? "" : NOT_CONNECTED);
      });
    }
  }

  /**
   * The Connection's `info`: what the connection learnt (nick, reason...) plus, as Convos has
   * them, `authenticated` (SASL or services login done) and the enabled IRCv3 `capabilities`.
   */
  #info(conn: IrcConnection | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = { authenticated: false, capabilities: {} };
    for (const [k, v] of Object.entries(conn?.info ?? {})) if (v !== undefined) out[k] = v;
    out.authenticated = conn?.state === "connected" && conn.info.authenticated === true;
    const enabled = (conn?.client?.network.cap as { enabled?: unknown } | undefined)?.enabled;
    if (conn?.state === "connected" && Array.isArray(enabled)) {
      out.capabilities = Object.fromEntries(enabled.slice(0, 100).map((c) => [String(c), true]));
    }
    return out;
  }

  /** The Connection resource of a stored connection, with its live state. */
  async json(record: ConnectionRecord): Promise<ConnectionJson> {
    const conn = this.#live.get(record.id);
    const profile = await this.#deps.store.profiles.get(hostId(parseIrcUrl(record.url).host))
      .catch(() => undefined);
    return {
      connection_id: record.connectionId,
      name: record.name,
      url: publicUrl(record.url),
      info: this.#info(conn),
      on_connect_commands: record.onConnectCommands,
      service_accounts: profile?.serviceAccounts ?? ["chanserv", "nickserv"],
      state: conn?.state ?? "disconnected",
      wanted_state: record.wantedState,
    };
  }

  /** The user's connections as the API returns them. */
  async list(userId: number): Promise<ConnectionJson[]> {
    const records = await this.#deps.store.connections.list(userId);
    return await Promise.all(records.map((r) => this.json(r)));
  }

  async #record(userId: number, connectionId: string): Promise<ConnectionRecord> {
    const record = await this.#deps.store.connections.get(userId, connectionId);
    if (!record) throw notFound("No such connection.");
    return record;
  }

  /** The nick a connection uses: its URL's, else the one kept beside the URL. */
  #nickOf(record: ConnectionRecord): string {
    return parseIrcUrl(record.url).nick || record.nick;
  }

  async #checkUnique(userId: number, host: string, port: number, nick: string, except?: number) {
    const wanted = { ...parseIrcUrl(`irc://${host}:${port}`), nick };
    for (const other of await this.#deps.store.connections.list(userId)) {
      if (other.id === except) continue;
      if (sameTarget(wanted, { ...parseIrcUrl(other.url), nick: this.#nickOf(other) })) {
        throw badRequest("Connection already exists.", "/body/url");
      }
    }
  }

  /** createConnection: stores the connection and, unless it should stay down, connects it. */
  async create(user: UserRecord, input: CreateConnection): Promise<ConnectionJson> {
    const { store } = this.#deps;
    const parsed = parseIrcUrl(input.url);
    await this.#checkForced(parsed.host);
    await this.#checkTarget(user, parsed.host);
    // The URL is kept (and returned) as given; a nick it lacks is kept beside it.
    const url = input.url.trim();
    const nick = parsed.nick || nickFromEmail(user.email);
    await this.#checkUnique(user.id, parsed.host, parsed.port, nick);
    const existing = (await store.connections.list(user.id)).map((c) => c.connectionId);
    await this.#checkCount(user, existing.length);
    const record = await store.connections.create({
      userId: user.id,
      connectionId: newConnectionId(parsed.host, existing),
      name: hostShortName(parsed.host),
      url,
      onConnectCommands: input.on_connect_commands ?? [],
      wantedState: input.wanted_state ?? "connected",
      nick,
    });
    const conn = this.#connection(record);
    // The first conversation (body or URL path) is joined, or opened, once connected.
    for (const name of [input.conversation_id ?? "", parsed.conversation]) {
      if (!name) continue;
      const conv = await conversationFor(this.#deps, conn, name);
      if (conv && conn.isChannel(name)) await store.conversations.setJoined(conv.id, true);
    }
    log.info("connection created", { uid: user.id, connection: record.connectionId });
    if (record.wantedState === "connected") this.#enqueue(conn);
    return this.json(record);
  }

  /** The server settings in force. */
  #settings(): Promise<ServerSettings> {
    return this.#deps.store.settings.current(this.#deps.config.defaultConnection);
  }

  /** With the server setting `forced_connection`, only the default connection's host is allowed. */
  async #checkForced(host: string): Promise<void> {
    const settings = await this.#settings();
    if (!settings.forced_connection) return;
    const allowed = parseIrcUrl(settings.default_connection).host;
    if (host !== allowed) {
      // Convos's wording: its clients translate errors by their English text.
      throw badRequest("Will only accept forced connection URL.", "/body/url");
    }
  }

  /**
   * Whether a user's connections may reach loopback, private and link-local addresses: admins and
   * the bot always, everyone when the environment or the server settings allow it.
   */
  async #mayReachPrivate(user: UserRecord | number): Promise<boolean> {
    if (this.#deps.config.ircAllowPrivate) return true;
    const record = typeof user === "number" ? await this.#deps.store.users.byId(user) : user;
    if (record && trusted(record)) return true;
    return (await this.#settings()).irc_allow_private;
  }

  /** An obviously private target (an IP literal or localhost) is refused before it is stored. */
  async #checkTarget(user: UserRecord | number, host: string): Promise<void> {
    const cls = literalClass(host);
    if (cls === undefined || cls === "public" || await this.#mayReachPrivate(user)) return;
    throw badRequest(refusal(host, host, cls), "/body/url");
  }

  /** Ordinary users have at most `max_connections_per_user` connections. */
  async #checkCount(user: UserRecord, existing: number): Promise<void> {
    if (trusted(user)) return;
    const max = (await this.#settings()).max_connections_per_user;
    if (existing >= max) {
      throw badRequest(
        `You already have ${existing} connections, the most this server allows (${max}).`,
        "/body",
      );
    }
  }

  /** updateConnection: a new URL reconnects; a wanted state connects or disconnects. */
  async update(
    userId: number,
    connectionId: string,
    input: UpdateConnection,
  ): Promise<ConnectionJson> {
    const { store } = this.#deps;
    let record = await this.#record(userId, connectionId);
    let urlChanged = false;
    const url = input.url?.trim();
    let nick: string | undefined;
    if (url !== undefined) {
      const parsed = parseIrcUrl(url);
      await this.#checkForced(parsed.host);
      await this.#checkTarget(userId, parsed.host);
      // A nick in the new URL is the one to use from now on; without one the current nick stays.
      nick = parsed.nick || this.#nickOf(record);
      await this.#checkUnique(userId, parsed.host, parsed.port, nick, record.id);
      urlChanged = url !== record.url;
    }
    record = (await store.connections.update(record.id, {
      url,
      onConnectCommands: input.on_connect_commands,
      wantedState: input.wanted_state,
      nick: urlChanged ? nick : undefined,
    }))!;
    const conn = this.#connection(record);
    if (record.wantedState === "disconnected") {
      this.#removeFromQueue(conn);
      await conn.stop("Disconnected by the user.");
    } else if (urlChanged) {
      this.#removeFromQueue(conn);
      await conn.stop("Reconnecting with new settings.");
      this.#enqueue(conn);
    } else if (conn.state === "disconnected" || conn.state === "disconnecting") {
      this.#enqueue(conn);
    }
    if (record.wantedState === "connected" && (urlChanged || input.wanted_state === "connected")) {
      // As Convos does: the answer waits for the attempt, and a failed one is a 424.
      await this.#attempted(conn, ATTEMPT_WAIT_MS);
      if (conn.state === "disconnected") {
        throw new ApiError(
          424,
          String(conn.info.reason ?? "Could not connect."),
          "/wanted_state",
        );
      }
    }
    return this.json(record);
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

  /** removeConnection: disconnects and deletes it with its conversations and messages. */
  async remove(userId: number, connectionId: string): Promise<void> {
    const record = await this.#record(userId, connectionId);
    await this.#drop(record);
    await this.#deps.store.connections.remove(record.id);
    log.info("connection removed", { uid: userId, connection: connectionId });
  }

  async #drop(record: ConnectionRecord): Promise<void> {
    const conn = this.#live.get(record.id);
    if (!conn) return;
    this.#removeFromQueue(conn);
    await conn.stop("Connection removed.");
    conn.dispose();
    this.#live.delete(record.id);
    this.#serials.delete(record.id);
  }

  /** Stops every connection of a user (before the user is deleted). */
  async userDeleted(userId: number): Promise<void> {
    for (const record of await this.#deps.store.connections.list(userId)) await this.#drop(record);
  }

  /**
   * Sends what the user typed in a conversation: a plain message or a slash command. Throws an
   * ApiError: 404 for an unknown connection, 400 for a bad command or a connection that is down.
   */
  async send(
    userId: number,
    connectionId: string,
    conversationId: string,
    message: string,
  ): Promise<CommandResult> {
    const record = await this.#record(userId, connectionId);
    try {
      await this.#openPrivate(record, conversationId, message);
      return await this.#run(record, ircLower(conversationId), message);
    } catch (err) {
      // Not written (the connection closed, or the line was refused): never answer "Sent".
      if (err instanceof SendError) throw badRequest(err.message, "/body/message");
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
  ): Promise<CommandResult> {
    const { store } = this.#deps;
    const conversation = await store.conversations.get(record.id, conversationId);
    if (conversationId !== "" && !conversation && !message.startsWith("/")) {
      throw notFound("No such conversation.");
    }
    const conn = this.#live.get(record.id);
    const userId = record.userId;
    return runCommand({
      deps: this.#deps,
      record,
      conn,
      conversationId,
      conversation,
      paste: (text) => pasteIfLong(this.#deps, userId, parseIrcUrl(record.url).host, text),
      control: {
        connect: async () =>
          void await this.update(userId, record.connectionId, {
            wanted_state: "connected",
          }),
        disconnect: async () =>
          void await this.update(userId, record.connectionId, {
            wanted_state: "disconnected",
          }),
        reconnect: async () => {
          const fresh = (await store.connections.update(record.id, { wantedState: "connected" }))!;
          const c = this.#connection(fresh);
          this.#removeFromQueue(c);
          await c.stop("Reconnecting.");
          this.#enqueue(c);
        },
        setNick: async (nick) => {
          await store.connections.update(record.id, { nick });
          const c = this.#live.get(record.id);
          if (c) {
            c.wantedNick = nick;
            c.record.nick = nick;
          }
        },
      },
    }, message);
  }

  /** The live state of a connection (for tests and the bot). */
  state(connectionRowId: number): string {
    return this.#live.get(connectionRowId)?.state ?? "disconnected";
  }
}
