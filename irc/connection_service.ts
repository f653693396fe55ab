/**
 * The connection service: what a user does to their connections (create, update, remove, list)
 * and the checks before anything is stored (forced connection, private targets, uniqueness,
 * count). Keeping them running is the manager's job (`irc/manager.ts`); this module only
 * tells it what the stored records now want.
 *
 * Errors are DomainErrors. Input errors point into the caller's input: `at` is the JSON pointer
 * of the input object in the caller's request (`/body` for the API's JSON body, "/" when the
 * input is the whole request).
 */
import type { Config } from "../config.ts";
import type { EventBus } from "../lib/bus.ts";
import { invalid, missing } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import type { ConnectionRecord } from "../store/connections.ts";
import type { WantedState } from "../protocol/resources.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import { hostId, hostShortName } from "./host_id.ts";
import type { IrcControl } from "./control.ts";
import { type ConnectionJson } from "../protocol/resources.ts";
import { connectionJson } from "./resources.ts";
import { clientCertificate } from "./certificate.ts";
import { literalClass, refusal } from "./socket/target.ts";
import { mayReachTarget, trusted } from "./trust.ts";
import { type IrcUrl, nickFromEmail, parseIrcUrl, targetKey } from "./url.ts";

/** What the service is built from. */
interface ConnectionServiceDeps {
  config: Config;
  store: Store;
  bus: EventBus;
  irc: IrcControl;
}

/** Input of createConnection (validated by the route). */
interface CreateConnection {
  url: string;
  /** A display name; without one, the host's short name. */
  name?: string;
  conversation_id?: string;
  on_connect_commands?: string[];
  wanted_state?: WantedState;
  /** More channels to join (the add-connection form's, or the default connection's list). */
  join?: string[];
}

/** Input of updateConnection (validated by the route). */
interface UpdateConnection {
  url?: string;
  name?: string;
  on_connect_commands?: string[];
  wanted_state?: WantedState;
}

/** The parameters of a URL that are the user's to choose, even on a forced connection. */
const USER_PARAMS = ["nick", "realname", "sasl", "tls", "tls_verify"];

/** Host, port and TLS: the server a stored secret was given for. */
function sameServer(a: IrcUrl, b: IrcUrl): boolean {
  return a.host === b.host && a.port === b.port && a.tls === b.tls;
}

/**
 * The URL to store when `given` replaces `stored`: the one rule for every way a connection is
 * changed (the API, the web form, BOUNCER CHANGENETWORK, a forced connection). The stored
 * password (the server's, or SASL's) goes only to the server it was given for: while host, port
 * and TLS stay the same, a given URL without a password keeps it (no client is ever shown it,
 * so none can send it back); once any of them changes it is dropped, and only a password in
 * the given URL goes there. `path` points at the given URL in the caller's input.
 */
function urlWithStoredSecret(stored: string, given: string, path: string): string {
  const url = new URL(given);
  if (url.password) return given;
  let old: IrcUrl;
  try {
    old = parseIrcUrl(stored);
  } catch {
    return given;
  }
  if (!old.password) return given;
  // As stored, still percent-encoded.
  url.password = new URL(stored.trim()).password;
  const now = parseIrcUrl(url.href, path);
  if (sameServer(now, old)) return url.href;
  if (now.sasl === "plain") {
    throw invalid(
      "Enter the password again: a saved password is only sent to the server, port and TLS setting it was saved for.",
      path,
    );
  }
  return given;
}

/** `text` with a password, when it parses as a URL without one. */
function withSomePassword(text: string): string {
  try {
    const url = new URL(text);
    url.password ||= "x";
    return url.href;
  } catch {
    return text;
  }
}

/** The JSON pointer of `key` inside the input at `at`. */
function field(at: string, key: string): string {
  return `${at === "/" ? "" : at}/${key}`;
}

/** Creates, updates and removes users' connections; the manager keeps them running. */
export class ConnectionService {
  #deps: ConnectionServiceDeps;

  constructor(deps: ConnectionServiceDeps) {
    this.#deps = deps;
  }

  /** The Connection resource of a stored connection, with its live state. */
  async json(record: ConnectionRecord): Promise<ConnectionJson> {
    return await this.#json(record, new Map());
  }

  /** As `json`; `profiles` holds the profiles already read, by host id (one read per host). */
  async #json(
    record: ConnectionRecord,
    profiles: Map<string, Promise<string[] | undefined>>,
  ): Promise<ConnectionJson> {
    const id = hostId(parseIrcUrl(record.url).host);
    let accounts = profiles.get(id);
    if (!accounts) {
      accounts = this.#deps.store.profiles.get(id).then((p) => p?.serviceAccounts, () => undefined);
      profiles.set(id, accounts);
    }
    return connectionJson(record, await this.#deps.irc.view(record), await accounts);
  }

  /** The user's connections as the API returns them. */
  async list(userId: number): Promise<ConnectionJson[]> {
    const records = await this.#deps.store.connections.list(userId);
    const profiles = new Map<string, Promise<string[] | undefined>>();
    return await Promise.all(records.map((r) => this.#json(r, profiles)));
  }

  async #record(userId: number, connectionId: string): Promise<ConnectionRecord> {
    const record = await this.#deps.store.connections.get(userId, connectionId);
    if (!record) throw missing("No such connection.");
    return record;
  }

  /** The nick a connection uses: its URL's, else the one kept beside the URL. */
  #nickOf(record: ConnectionRecord): string {
    return parseIrcUrl(record.url).nick || record.nick;
  }

  /** The target a stored connection names, or a never-matching one when its URL is unusable. */
  #targetOf(record: ConnectionRecord): string {
    try {
      return targetKey({ ...parseIrcUrl(record.url), nick: this.#nickOf(record) });
    } catch {
      return `!${record.id}`;
    }
  }

  /**
   * Host, port and nick name one connection per user ("Connection already exists."): an index
   * lookup of the target, once the user's connections stored before targets were kept have one.
   */
  async #checkUnique(userId: number, target: string, path: string, except?: number) {
    const { connections } = this.#deps.store;
    for (const old of await connections.untargeted(userId)) {
      await connections.update(old.id, { target: this.#targetOf(old) });
    }
    const same = await connections.byTarget(userId, target);
    if (same.some((other) => other.id !== except)) {
      throw invalid("Connection already exists.", path);
    }
  }

  /**
   * `irc-libera` for the user's first connection to a host, then one past the highest number
   * of the others (`irc-libera-2`, `-3`...): two indexed reads, however many the user has.
   */
  async #newId(userId: number, host: string): Promise<string> {
    const { connections } = this.#deps.store;
    const base = hostId(host);
    if (!await connections.get(userId, base)) return base;
    return `${base}-${Math.max(1, await connections.highestNumber(userId, base)) + 1}`;
  }

  /** With the server setting `forced_connection`, only the default connection's host is allowed. */
  async #checkForced(host: string, path: string): Promise<void> {
    const settings = await this.#deps.store.settings.current(this.#deps.config.defaultConnection);
    if (!settings.forced_connection) return;
    if (host !== parseIrcUrl(settings.default_connection).host) {
      // Convos's wording: its clients translate errors by their English text.
      throw invalid("Will only accept forced connection URL.", path);
    }
  }

  /**
   * With `forced_connection`, the URL an update stores: the forced one (the default connection's)
   * with only the user's own parameters taken from the given URL, as Convos does; the default
   * connection's password stays with it only while its port and TLS do. Undefined when no
   * connection is forced.
   */
  async #forcedUrl(url: string, path: string): Promise<string | undefined> {
    const settings = await this.#deps.store.settings.current(this.#deps.config.defaultConnection);
    if (!settings.forced_connection) return undefined;
    const given = new URL(url).searchParams;
    const forced = new URL(settings.default_connection.trim());
    for (const key of USER_PARAMS) {
      const value = given.get(key);
      if (value !== null) forced.searchParams.set(key, value);
    }
    forced.password = "";
    return urlWithStoredSecret(settings.default_connection, forced.href, path);
  }

  /**
   * An obviously private target (an IP literal or localhost) is refused before it is stored,
   * unless the user may reach it (trust.ts: the same rule the connect itself follows).
   */
  async #checkTarget(
    user: UserRecord | number,
    target: { host: string; port: number },
    path: string,
  ): Promise<void> {
    const cls = literalClass(target.host);
    if (cls === undefined || cls === "public") return;
    if (await mayReachTarget(this.#deps, user, target)) return;
    throw invalid(refusal(target.host, target.host, cls), path);
  }

  /** Ordinary users have at most `max_connections_per_user` connections. */
  async #checkCount(user: UserRecord, existing: number, path: string): Promise<void> {
    if (trusted(user)) return;
    const max = (await this.#deps.store.settings.current()).max_connections_per_user;
    if (existing >= max) {
      throw invalid(
        `You already have ${existing} connections, the most this server allows (${max}).`,
        path,
      );
    }
  }

  /** createConnection: stores the connection and, unless it should stay down, connects it. */
  async create(user: UserRecord, input: CreateConnection, at: string): Promise<ConnectionJson> {
    const { store, irc } = this.#deps;
    const urlPath = field(at, "url");
    const parsed = parseIrcUrl(input.url, urlPath);
    await this.#checkForced(parsed.host, urlPath);
    await this.#checkTarget(user, parsed, urlPath);
    // The URL is kept (and returned) as given; a nick it lacks is kept beside it.
    const url = input.url.trim();
    const nick = parsed.nick || nickFromEmail(user.email);
    const target = targetKey({ ...parsed, nick });
    await this.#checkUnique(user.id, target, urlPath);
    await this.#checkCount(user, await store.connections.count(user.id), at);
    const record = await store.connections.create({
      userId: user.id,
      connectionId: await this.#newId(user.id, parsed.host),
      name: input.name ?? hostShortName(parsed.host),
      url,
      onConnectCommands: input.on_connect_commands ?? [],
      wantedState: input.wanted_state ?? "connected",
      nick,
      target,
    });
    // Made when a connection first goes to connect (as Convos does), so a connection created to
    // connect has its fingerprint in the first answer.
    if (record.wantedState === "connected") await clientCertificate(store, record);
    await irc.created(record, [
      { name: input.conversation_id ?? "" },
      { name: parsed.conversation, key: parsed.conversationKey },
      ...(input.join ?? []).map((name) => ({ name })),
    ]);
    log.info("connection created", { uid: user.id, connection: record.connectionId });
    return this.json(record);
  }

  /**
   * updateConnection: a new URL reconnects (a forced connection's at its next connect); a wanted
   * state connects or disconnects. Asked to be connected, the answer waits for the attempt, and a
   * failed one is an `upstream` error.
   */
  async update(
    userId: number,
    connectionId: string,
    input: UpdateConnection,
    at: string,
  ): Promise<ConnectionJson> {
    const { store, irc } = this.#deps;
    let record = await this.#record(userId, connectionId);
    let urlChanged = false;
    let url = input.url?.trim();
    let nick: string | undefined;
    let target: string | undefined;
    let forced = false;
    if (url !== undefined) {
      const urlPath = field(at, "url");
      // Checked as given, as if it had a password: the stored one may yet meet SASL PLAIN's need.
      parseIrcUrl(withSomePassword(url), urlPath);
      // Forced, the host is the forced one whatever the given URL says (so #checkForced holds).
      const forcedUrl = await this.#forcedUrl(url, urlPath);
      forced = forcedUrl !== undefined;
      url = forcedUrl ?? urlWithStoredSecret(record.url, url, urlPath);
      const parsed = parseIrcUrl(url, urlPath);
      await this.#checkTarget(userId, parsed, urlPath);
      // A nick in the new URL is the one to use from now on; without one the current nick stays.
      nick = parsed.nick || this.#nickOf(record);
      target = targetKey({ ...parsed, nick });
      await this.#checkUnique(userId, target, urlPath, record.id);
      urlChanged = url !== record.url;
    }
    record = (await store.connections.update(record.id, {
      url,
      name: input.name,
      onConnectCommands: input.on_connect_commands,
      wantedState: input.wanted_state,
      nick: urlChanged ? nick : undefined,
      target: urlChanged ? target : undefined,
    }))!;
    // As Convos: a forced connection's new parameters wait for its next connect.
    const restart = urlChanged && !forced;
    await irc.applyRecord(
      record,
      restart ? "Reconnecting with new settings." : undefined,
      record.wantedState === "connected" && (restart || input.wanted_state === "connected"),
    );
    return this.json(record);
  }

  /** removeConnection: disconnects and deletes it with its conversations and messages. */
  async remove(userId: number, connectionId: string): Promise<void> {
    const record = await this.#record(userId, connectionId);
    await this.#deps.irc.drop(record);
    await this.#deps.store.connections.remove(record.id);
    log.info("connection removed", { uid: userId, connection: connectionId });
  }
}
