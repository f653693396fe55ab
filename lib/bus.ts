/** The in-process event bus: IRC and the store publish per-user events, `/events` sockets listen. */
import type {
  BusEvent,
  DetachEvent,
  DetachMissedEvent,
  EventKind,
  ListenersEvent,
  TapEvent,
} from "../protocol/events.ts";

type Listener = (ev: BusEvent) => void;
/**
 * Sees every user's events without counting as a socket (push notifications, automatic away),
 * plus `{event: "listeners", count}` whenever a user's sockets come or go.
 */
type Tap = (userId: number, ev: TapEvent) => void;

/**
 * What carries events to other Parley nodes (cluster/bus_bridge.ts): told of this node's socket
 * counts, and given the events published here for users with sockets elsewhere.
 */
interface BusRelay {
  /**
   * This node's open sockets of a user changed to `count`, of the login sessions `sessions`,
   * `away` of them pages not looked at.
   */
  localCount(userId: number, count: number, sessions: readonly string[], away: number): void;
  /** An event published on this node for a user who has sockets on other nodes. */
  relay(userId: number, ev: BusEvent): void;
}

/** Fans events out to the listeners of one user. */
export class EventBus {
  #listeners = new Map<number, Set<Listener>>();
  /** Sockets of each user on other nodes (a cluster's bridge keeps it). */
  #remote = new Map<number, number>();
  /**
   * The login sessions (their hashes) that have sockets open, per user: on this node, with how
   * many sockets each, and on the others. Push skips the browsers a session has open.
   */
  #sessions = new Map<number, Map<string, number>>();
  #remoteSessions = new Map<number, ReadonlySet<string>>();
  /** Sockets whose page said it is not looked at (`setHere`), here and on the other nodes. */
  #away = new Map<number, Set<Listener>>();
  #remoteAway = new Map<number, number>();
  #relay?: BusRelay;
  /** Each tap with the event kinds it wants (undefined: all). */
  #taps = new Map<Tap, ReadonlySet<EventKind> | undefined>();
  /** Taps that want only some users' events, and which (the bouncer: users with IRC clients). */
  #tapUsers = new Map<Tap, (userId: number) => boolean>();

  /**
   * Adds a tap, for the event kinds in `kinds` (all when omitted) and the users `users` says yes
   * to (all when omitted); returns the function that removes it. Naming the kinds and users lets
   * a publisher skip building events nobody wants.
   */
  tap(fn: Tap, kinds?: readonly EventKind[], users?: (userId: number) => boolean): () => void {
    this.#taps.set(fn, kinds ? new Set(kinds) : undefined);
    if (users) this.#tapUsers.set(fn, users);
    return () => {
      this.#taps.delete(fn);
      this.#tapUsers.delete(fn);
    };
  }

  #toTaps(userId: number, ev: TapEvent): void {
    for (const [fn, kinds] of this.#taps) {
      if (kinds && !kinds.has(ev.event)) continue;
      if (this.#tapUsers.get(fn)?.(userId) === false) continue;
      try {
        fn(userId, ev);
      } catch (err) {
        console.error("event tap failed", err);
      }
    }
  }

  #listenersChanged(userId: number): void {
    const ev: ListenersEvent = { event: "listeners", count: this.listenerCount(userId) };
    this.#toTaps(userId, ev);
  }

  /** Connects this bus to other nodes (cluster/bus_bridge.ts). */
  setRelay(relay: BusRelay): void {
    this.#relay = relay;
  }

  /**
   * A user's sockets on other nodes now number `count`, of the login sessions `sessions`, `away`
   * of them pages not looked at (from the cluster's bridge).
   */
  setRemoteCount(
    userId: number,
    count: number,
    sessions: readonly string[] = [],
    away = 0,
  ): void {
    if (sessions.length) this.#remoteSessions.set(userId, new Set(sessions));
    else this.#remoteSessions.delete(userId);
    const before = this.#remote.get(userId) ?? 0;
    const awayBefore = this.#remoteAway.get(userId) ?? 0;
    if (away > 0) this.#remoteAway.set(userId, away);
    else this.#remoteAway.delete(userId);
    if (count === before) {
      if (away !== awayBefore) this.#listenersChanged(userId);
      return;
    }
    if (count > 0) this.#remote.set(userId, count);
    else this.#remote.delete(userId);
    this.#listenersChanged(userId);
  }

  /** Delivers an event that was published on another node to this node's sockets only. */
  deliverLocal(userId: number, ev: BusEvent): void {
    const set = this.#listeners.get(userId);
    if (!set) return;
    for (const fn of set) {
      try {
        fn(ev);
      } catch (err) {
        console.error("event listener failed", err);
      }
    }
  }

  /**
   * Registers a listener for a user's events, a socket of the login session `session` when
   * given; returns the function that removes it.
   */
  subscribe(userId: number, fn: Listener, session?: string): () => void {
    let set = this.#listeners.get(userId);
    if (!set) this.#listeners.set(userId, set = new Set());
    set.add(fn);
    if (session !== undefined) this.#countSession(userId, session, 1);
    this.#told(userId);
    return () => {
      if (!set.delete(fn)) return;
      if (set.size === 0) this.#listeners.delete(userId);
      if (session !== undefined) this.#countSession(userId, session, -1);
      this.#setAway(userId, fn, false);
      this.#told(userId);
    };
  }

  /**
   * The page of the socket `fn` is looked at (`here`) or has been out of view a while: automatic
   * away counts only the first (`hereCount`).
   */
  setHere(userId: number, fn: Listener, here: boolean): void {
    if (!this.#listeners.get(userId)?.has(fn)) return;
    if (this.#setAway(userId, fn, !here)) this.#told(userId);
  }

  /** Whether the socket's mark changed. */
  #setAway(userId: number, fn: Listener, away: boolean): boolean {
    let set = this.#away.get(userId);
    if (away === (set?.has(fn) ?? false)) return false;
    if (away) {
      if (!set) this.#away.set(userId, set = new Set());
      set.add(fn);
    } else {
      set!.delete(fn);
      if (!set!.size) this.#away.delete(userId);
    }
    return true;
  }

  /** This node's sockets of a user changed: the other nodes and the taps are told. */
  #told(userId: number): void {
    const count = this.#listeners.get(userId)?.size ?? 0;
    this.#relay?.localCount(userId, count, this.localSessions(userId), this.localAway(userId));
    this.#listenersChanged(userId);
  }

  /** This node's sockets of a user whose page is not looked at. */
  localAway(userId: number): number {
    return this.#away.get(userId)?.size ?? 0;
  }

  /** A user's sockets whose page is looked at, on this node and the others. */
  hereCount(userId: number): number {
    return this.listenerCount(userId) - this.localAway(userId) -
      (this.#remoteAway.get(userId) ?? 0);
  }

  #countSession(userId: number, session: string, by: number): void {
    let counts = this.#sessions.get(userId);
    if (!counts) this.#sessions.set(userId, counts = new Map());
    const n = (counts.get(session) ?? 0) + by;
    if (n > 0) counts.set(session, n);
    else counts.delete(session);
    if (!counts.size) this.#sessions.delete(userId);
  }

  /** The login sessions with sockets of a user open on this node. */
  localSessions(userId: number): string[] {
    return [...this.#sessions.get(userId)?.keys() ?? []];
  }

  /** The login sessions with sockets of a user open on this node or, in a cluster, the others. */
  openSessions(userId: number): Set<string> {
    return new Set([...this.localSessions(userId), ...this.#remoteSessions.get(userId) ?? []]);
  }

  /** Delivers an event to every listener of a user; one failing listener does not stop the rest. */
  publish(userId: number, ev: BusEvent): void {
    this.#toTaps(userId, ev);
    if (this.#relay && this.#remote.has(userId)) this.#relay.relay(userId, ev);
    this.deliverLocal(userId, ev);
  }

  /** An event for the taps alone, which no socket is sent. */
  tell(userId: number, ev: DetachEvent | DetachMissedEvent): void {
    this.#toTaps(userId, ev);
  }

  /** Delivers an event to every listener of every user (server shutdown). */
  broadcast(ev: BusEvent): void {
    // This node's sockets only: another node is not shutting down.
    for (const userId of [...this.#listeners.keys()]) {
      this.#toTaps(userId, ev);
      this.deliverLocal(userId, ev);
    }
  }

  /** How many listeners a user has (open sockets), on this node and, in a cluster, the others. */
  listenerCount(userId: number): number {
    return (this.#listeners.get(userId)?.size ?? 0) + (this.#remote.get(userId) ?? 0);
  }

  /** How many listeners a user has on this node. */
  localCount(userId: number): number {
    return this.#listeners.get(userId)?.size ?? 0;
  }

  /** Users with sockets on this node. */
  localUsers(): number[] {
    return [...this.#listeners.keys()];
  }

  /**
   * Whether an event of this kind for this user would reach anyone: an open socket of theirs, or
   * a tap that wants the kind. A publisher may skip building events that reach nobody.
   */
  wouldReceive(userId: number, kind: BusEvent["event"]): boolean {
    if (this.listenerCount(userId) > 0) return true;
    for (const [fn, kinds] of this.#taps) {
      if ((!kinds || kinds.has(kind)) && this.#tapUsers.get(fn)?.(userId) !== false) return true;
    }
    return false;
  }
}
