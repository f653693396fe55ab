/**
 * The bouncer: IRC clients (irssi, weechat, senpai, Goguma, gamja) attach to a user's Parley
 * connection as if it were the IRC server, sharing one live stream with the web client. Wired by
 * the daemon when `PARLEY_IRC_LISTEN` is set.
 */
import type { AppDeps } from "../http/env.ts";
import { log } from "../lib/log.ts";
import { type HistoryService, unavailableHistory } from "./history.ts";
import { historyService } from "./history/mod.ts";
import { type BouncerLimits, DEFAULT_LIMITS } from "./limits.ts";
import { Acceptor, listen, type ListenAddress } from "./listener.ts";
import { WebSocketTransport } from "./websocket.ts";
import { Relay } from "./relay.ts";
import type { BouncerContext } from "./session.ts";
import { watchNetworks } from "./networks.ts";
import { pushFor } from "../push/mod.ts";
import { BouncerCluster, type ClusterLink } from "./cluster.ts";
import { endedText, ends, passwordGeneration, type Revocation, stillValid } from "./credentials.ts";
import { relayServerNotices } from "./service/irc.ts";
import { relayConnectionStates } from "./state_notices.ts";
import { startWebPush } from "./webpush.ts";
import { filehostUrl } from "./filehost.ts";
import { settleDefaultConnection } from "../irc/default_connection.ts";

/**
 * A read marker that moved (in the web client, through the API, or by an attached client's
 * MARKREAD) reaches every attached client of its connection that takes read markers.
 */
function relayMarkers(cx: BouncerContext): () => void {
  return cx.relay.bus.tap(
    (userId, ev) => {
      if (ev.event !== "read") return;
      const hub = cx.relay.existing(userId, ev.connection_id);
      if (!hub) return;
      const target = hub.state.channel(ev.conversation_id)?.name ?? ev.conversation_id;
      const line = cx.history.markerLine(target, ev.ts);
      for (const c of hub.clients) if (c.caps.has("draft/read-marker")) c.write(line);
    },
    ["read"],
    (userId) => cx.relay.hasClients(userId),
  );
}

/** Ends this node's sessions a revocation reaches: ERROR, then the socket is closed. */
async function endRevoked(cx: BouncerContext, r: Revocation): Promise<void> {
  if (!cx.logins.has(r.userId)) return;
  if (r.kind === "password") {
    // The password as stored now: of two changes made on two nodes at once, the one heard last
    // here may not be the newer.
    // why: a store that does not answer leaves the revocation as heard; it is still applied.
    const user = await cx.store.users.byId(r.userId).catch(() => undefined);
    if (user) r = { ...r, generation: await passwordGeneration(user.passwordHash) };
  }
  const sessions = [...cx.logins.get(r.userId) ?? []];
  const ended = sessions.filter((s) => ends(r, r.userId, s.login?.credential));
  for (const s of ended) s.quit(endedText(r));
  if (ended.length) {
    log.info("bouncer sessions ended", { uid: r.userId, why: r.kind, n: ended.length });
  }
}

/**
 * Ends every session whose credential no longer lets its user in: revocations were missed (this
 * node did not hear the others for a while), so each session is checked against the store.
 */
async function endNoLongerValid(cx: BouncerContext): Promise<void> {
  let n = 0;
  for (const [userId, sessions] of [...cx.logins]) {
    for (const s of [...sessions]) {
      if (!s.login || await stillValid(cx.store, userId, s.login.credential)) continue;
      s.quit("The login is no longer valid");
      n++;
    }
  }
  if (n) log.info("bouncer sessions ended: revocations were missed", { n });
}

export type { ListenAddress } from "./listener.ts";

/** A running bouncer. */
export interface Bouncer {
  ports: number[];
  relay: Relay;
  /**
   * Runs an IRC client that came as a WebSocket on the HTTP port (`GET /socket`); `otherOrigin`
   * when a page of another origin opened it (its failed logins count apart); `binary` when it
   * speaks binary.ircv3.net.
   */
  acceptSocket(socket: WebSocket, address: string, otherOrigin?: boolean, binary?: boolean): void;
  /** How many IRC clients are attached on this node (metrics). */
  clients(): number;
  close(): Promise<void>;
}

/** Starts the relay and the listeners. Call before the IRC connections start, so no line is missed. */
export function startBouncer(
  deps: Pick<
    AppDeps,
    | "store"
    | "bus"
    | "irc"
    | "loginThrottle"
    | "directory"
    | "connections"
    | "revocations"
    | "config"
    | "userDeleted"
    | "lines"
  >,
  opts: {
    addresses: ListenAddress[];
    tls?: { cert: string; key: string };
    history?: HistoryService;
    limits?: Partial<BouncerLimits>;
    version?: string;
  },
): Bouncer {
  const relay = new Relay(deps.bus, deps.store);
  relay.start();
  // Each line of the connections this node runs reaches the relay once handled, in order.
  deps.lines?.setOutlet(relay);
  const push = pushFor(deps);
  const away = push.away;
  const cx: BouncerContext = {
    store: deps.store,
    loginThrottle: deps.loginThrottle!,
    loggedIn: (user) => settleDefaultConnection(deps, user),
    directory: deps.directory,
    irc: deps.irc,
    relay,
    history: opts.history ?? historyService(deps) ?? unavailableHistory,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    version: opts.version ?? "dev",
    attached: new Map(),
    // Automatic away counts attached IRC clients as present, as it counts browsers.
    present: new Counts((userId, count) => away.ircClients(userId, count)),
    logins: new Map(),
    networkWatchers: new Set(),
    connections: deps.connections,
    services: { push, filehost: filehostUrl(deps.config.baseUrl) },
    accounts: { revocations: deps.revocations, userDeleted: deps.userDeleted },
  };
  // With several nodes (cluster/irc.ts), a client of a user another node runs is handed over.
  const link = (deps.irc as { bouncerLink?: () => ClusterLink }).bouncerLink?.();
  if (link) {
    cx.cluster = new BouncerCluster(link, cx);
    cx.cluster.start().catch((err) =>
      log.error("bouncer: not listening for other nodes", { error: String(err) })
    );
  }
  const unwatchNetworks = watchNetworks({
    bus: relay.bus,
    store: cx.store,
    connections: cx.connections,
    watchers: (userId) => [...cx.networkWatchers].filter((s) => s.userId === userId),
  });
  const unwatchMarkers = relayMarkers(cx);
  const unwatchNotices = relayServerNotices(cx);
  const unwatchStates = relayConnectionStates(cx);
  const unwatchPush = startWebPush(cx, push);
  const unwatchRevocations = deps.revocations?.listen((r) =>
    endRevoked(cx, r).catch((err) =>
      log.error("bouncer: revoked sessions not ended", { uid: r.userId, error: err })
    )
  );
  const unwatchMissed = deps.revocations?.onMissed(() =>
    endNoLongerValid(cx).catch((err) =>
      log.error("bouncer: sessions not checked again", { error: err })
    )
  );
  const unwatch = () => {
    unwatchNetworks();
    unwatchMarkers();
    unwatchNotices();
    unwatchStates();
    unwatchPush();
    unwatchRevocations?.();
    unwatchMissed?.();
  };
  const acceptor = new Acceptor(cx);
  let listening;
  try {
    listening = listen(acceptor, opts.addresses, opts.tls);
  } catch (err) {
    deps.lines?.setOutlet(undefined);
    relay.stop();
    unwatch();
    throw err;
  }
  return {
    ports: listening.ports,
    relay,
    acceptSocket: (socket, address, otherOrigin, binary) =>
      acceptor.accept(new WebSocketTransport(socket, address, otherOrigin, binary)),
    clients: () => {
      let n = 0;
      for (const count of cx.attached.values()) n += count;
      return n;
    },
    close() {
      listening.close();
      acceptor.closeAll();
      cx.cluster?.stop().catch(() => {});
      unwatch();
      deps.lines?.setOutlet(undefined);
      relay.stop();
      return Promise.resolve();
    },
  };
}

/** Counts per user that tell each change. */
class Counts extends Map<number, number> {
  constructor(readonly changed: (userId: number, count: number) => void) {
    super();
  }

  override set(userId: number, count: number): this {
    super.set(userId, count);
    this.changed?.(userId, count);
    return this;
  }

  override delete(userId: number): boolean {
    const had = super.delete(userId);
    if (had) this.changed(userId, 0);
    return had;
  }
}
