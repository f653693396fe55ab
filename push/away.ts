/**
 * Automatic away (a per-user setting, off by default): once none of the user's clients (browser
 * pages looked at, and IRC clients attached through the listener) has been there for a grace period,
 * every connected IRC connection of theirs is marked away; the first client that comes marks them
 * back, and so does turning the setting off. Connections that come up meanwhile are marked too.
 */
import type { EventBus } from "../lib/bus.ts";
import { log } from "../lib/log.ts";
import type { IrcControl } from "../irc/control.ts";
import type { Store } from "../store/mod.ts";

/**
 * The away message other IRC users see.
 *
 * @internal test seam
 */
export const AWAY_MESSAGE = "Away (no client attached)";

/** What automatic away needs. */
export interface AwayDeps {
  store: Store;
  bus: EventBus;
  irc: IrcControl;
}

/** Watches socket counts (the bus's `listeners` events) and sends AWAY accordingly. */
export class AutoAway {
  /** How long after the last socket closes the user goes away (a reload is not leaving). */
  graceMs = 60_000;
  #timers = new Map<number, ReturnType<typeof setTimeout>>();
  /** Users this module has marked away. */
  #away = new Set<number>();
  /** IRC clients attached through the listener, per user (the bouncer tells). */
  #ircClients = new Map<number, number>();
  #untap?: () => void;

  constructor(private deps: AwayDeps) {}

  /**
   * Starts watching the bus. At a start no browser is connected yet: users who chose automatic
   * away get their grace period as if their last browser had just closed.
   */
  start(): void {
    if (this.#untap) return;
    void this.deps.store.push.autoAwayUsers().then(
      (users) => users.forEach((uid) => void this.#startGrace(uid)),
      () => {},
    );
    this.#untap = this.deps.bus.tap((userId, ev) => {
      if (ev.event === "listeners") this.#presence(userId);
      else if (
        ev.event === "state" && ev.type === "connection" && ev.state === "connected" &&
        this.#away.has(userId)
      ) {
        this.#send(userId, ev.connection_id, `/away ${AWAY_MESSAGE}`);
      }
    }, ["listeners", "state"]);
  }

  /** Stops watching and forgets pending timers. */
  stop(): void {
    this.#untap?.();
    this.#untap = undefined;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  /** Whether this module has marked a user away. */
  isAway(userId: number): boolean {
    return this.#away.has(userId);
  }

  /** The bouncer's count of a user's attached IRC clients changed. */
  ircClients(userId: number, count: number): void {
    if (count > 0) this.#ircClients.set(userId, count);
    else this.#ircClients.delete(userId);
    this.#presence(userId);
  }

  /**
   * The user turned automatic away on or off: on, the grace period starts when no client is
   * there; off, the away this module set is cleared.
   */
  async setting(userId: number, on: boolean): Promise<void> {
    if (on) return await this.#startGrace(userId);
    clearTimeout(this.#timers.get(userId));
    this.#timers.delete(userId);
    if (this.#away.delete(userId)) await this.#all(userId, "/away");
  }

  /**
   * Browser pages looked at (a page out of view a while says so: `presence` on its socket) and
   * IRC clients (but those that said `AWAY *`) the user has now.
   */
  #present(userId: number): number {
    return this.deps.bus.hereCount(userId) + (this.#ircClients.get(userId) ?? 0);
  }

  #presence(userId: number): void {
    clearTimeout(this.#timers.get(userId));
    this.#timers.delete(userId);
    if (this.#present(userId) > 0) {
      if (this.#away.delete(userId)) {
        this.#all(userId, "/away").catch((err) =>
          log.warn("automatic away not ended", { uid: userId, error: err })
        );
      }
      return;
    }
    void this.#startGrace(userId);
  }

  async #startGrace(userId: number): Promise<void> {
    // Only users who chose it get a timer (most never do).
    if (!(await this.deps.store.push.autoAway(userId).catch(() => false))) return;
    if (this.#present(userId) > 0 || this.#timers.has(userId)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(userId);
      void this.#goAway(userId);
    }, this.graceMs);
    Deno.unrefTimer(timer);
    this.#timers.set(userId, timer);
  }

  async #goAway(userId: number): Promise<void> {
    try {
      if (this.#present(userId) > 0) return;
      if (!(await this.deps.store.push.autoAway(userId))) return;
      this.#away.add(userId);
      await this.#all(userId, `/away ${AWAY_MESSAGE}`);
    } catch (err) {
      log.warn("automatic away failed", { uid: userId, error: err });
    }
  }

  async #all(userId: number, command: string): Promise<void> {
    for (const c of await this.deps.store.connections.list(userId)) {
      if (this.deps.irc.state(c.id) === "connected") {
        await this.#send(userId, c.connectionId, command);
      }
    }
  }

  async #send(userId: number, connectionId: string, command: string): Promise<void> {
    try {
      await this.deps.irc.send(userId, connectionId, "", command);
    } catch (err) {
      log.info("automatic away not sent", { uid: userId, connection: connectionId, error: err });
    }
  }
}
