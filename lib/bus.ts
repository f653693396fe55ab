/** The in-process event bus: IRC and the store publish per-user events, `/events` sockets listen. */

/** One event as it goes out on the `/events` socket; `event` names its kind. */
export interface BusEvent {
  event: string;
  [key: string]: unknown;
}

type Listener = (ev: BusEvent) => void;
/**
 * Sees every user's events without counting as a socket (push notifications, automatic away),
 * plus `{event: "listeners", count}` whenever a user's sockets come or go.
 */
type Tap = (userId: number, ev: BusEvent) => void;

/** Fans events out to the listeners of one user. */
export class EventBus {
  #listeners = new Map<number, Set<Listener>>();
  #taps = new Set<Tap>();

  /** Adds a tap; returns the function that removes it. */
  tap(fn: Tap): () => void {
    this.#taps.add(fn);
    return () => void this.#taps.delete(fn);
  }

  #toTaps(userId: number, ev: BusEvent): void {
    for (const fn of this.#taps) {
      try {
        fn(userId, ev);
      } catch (err) {
        console.error("event tap failed", err);
      }
    }
  }

  /** Registers a listener for a user's events; returns the function that removes it. */
  subscribe(userId: number, fn: Listener): () => void {
    let set = this.#listeners.get(userId);
    if (!set) this.#listeners.set(userId, set = new Set());
    set.add(fn);
    this.#toTaps(userId, { event: "listeners", count: set.size });
    return () => {
      if (!set.delete(fn)) return;
      if (set.size === 0) this.#listeners.delete(userId);
      this.#toTaps(userId, { event: "listeners", count: set.size });
    };
  }

  /** Delivers an event to every listener of a user; one failing listener does not stop the rest. */
  publish(userId: number, ev: BusEvent): void {
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
  broadcast(ev: BusEvent): void {
    for (const userId of [...this.#listeners.keys()]) this.publish(userId, ev);
  }

  /** How many listeners a user has (open sockets). */
  listenerCount(userId: number): number {
    return this.#listeners.get(userId)?.size ?? 0;
  }
}
