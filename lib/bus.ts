/** The in-process event bus: IRC and the store publish per-user events, `/events` sockets listen. */
import type { EventKind, ListenersEvent, PushedEvent, TapEvent } from "./events.ts";

/** One event as it goes out on the `/events` socket (lib/events.ts declares them all). */
export type BusEvent = PushedEvent;

type Listener = (ev: PushedEvent) => void;
/**
 * Sees every user's events without counting as a socket (push notifications, automatic away),
 * plus `{event: "listeners", count}` whenever a user's sockets come or go.
 */
type Tap = (userId: number, ev: TapEvent) => void;

/** Fans events out to the listeners of one user. */
export class EventBus {
  #listeners = new Map<number, Set<Listener>>();
  /** Each tap with the event kinds it wants (undefined: all). */
  #taps = new Map<Tap, ReadonlySet<EventKind> | undefined>();

  /**
   * Adds a tap, for the event kinds in `kinds` (all when omitted); returns the function that
   * removes it. Naming the kinds lets a publisher skip building events nobody wants.
   */
  tap(fn: Tap, kinds?: readonly EventKind[]): () => void {
    this.#taps.set(fn, kinds ? new Set(kinds) : undefined);
    return () => void this.#taps.delete(fn);
  }

  #toTaps(userId: number, ev: TapEvent): void {
    for (const [fn, kinds] of this.#taps) {
      if (kinds && !kinds.has(ev.event)) continue;
      try {
        fn(userId, ev);
      } catch (err) {
        console.error("event tap failed", err);
      }
    }
  }

  #listenersChanged(userId: number, count: number): void {
    const ev: ListenersEvent = { event: "listeners", count };
    this.#toTaps(userId, ev);
  }

  /** Registers a listener for a user's events; returns the function that removes it. */
  subscribe(userId: number, fn: Listener): () => void {
    let set = this.#listeners.get(userId);
    if (!set) this.#listeners.set(userId, set = new Set());
    set.add(fn);
    this.#listenersChanged(userId, set.size);
    return () => {
      if (!set.delete(fn)) return;
      if (set.size === 0) this.#listeners.delete(userId);
      this.#listenersChanged(userId, set.size);
    };
  }

  /** Delivers an event to every listener of a user; one failing listener does not stop the rest. */
  publish(userId: number, ev: PushedEvent): void {
    this.#toTaps(userId, ev);
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

  /** Delivers an event to every listener of every user (server shutdown). */
  broadcast(ev: PushedEvent): void {
    for (const userId of [...this.#listeners.keys()]) this.publish(userId, ev);
  }

  /** How many listeners a user has (open sockets). */
  listenerCount(userId: number): number {
    return this.#listeners.get(userId)?.size ?? 0;
  }

  /**
   * Whether an event of this kind for this user would reach anyone: an open socket of theirs, or
   * a tap that wants the kind. A publisher may skip building events that reach nobody.
   */
  wouldReceive(userId: number, kind: PushedEvent["event"]): boolean {
    if (this.listenerCount(userId) > 0) return true;
    for (const kinds of this.#taps.values()) if (!kinds || kinds.has(kind)) return true;
    return false;
  }
}
