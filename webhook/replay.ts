/**
 * Replay detection for webhook deliveries: the keys of recent deliveries, bounded in count and in
 * time. Kept in memory, so a restart forgets them (docs/security.md).
 */

/** How many deliveries are remembered. */
const REPLAY_MAX = 10_000;
/** How long a delivery is remembered. */
const REPLAY_TTL_MS = 7 * 24 * 3600_000;

/** Recently seen keys, oldest first. */
export class RecentKeys {
  #seen = new Map<string, number>();
  constructor(readonly max = REPLAY_MAX, readonly ttlMs = REPLAY_TTL_MS) {}

  /** Whether any of the keys was seen within the window. */
  seen(keys: string[], now = Date.now()): boolean {
    return keys.some((k) => {
      const at = this.#seen.get(k);
      return at !== undefined && now - at < this.ttlMs;
    });
  }

  /** Remembers the keys, forgetting the oldest past `max` and those past the window. */
  add(keys: string[], now = Date.now()): void {
    for (const k of keys) {
      this.#seen.delete(k);
      this.#seen.set(k, now);
    }
    for (const [k, at] of this.#seen) {
      if (this.#seen.size <= this.max && now - at < this.ttlMs) break;
      this.#seen.delete(k);
    }
  }

  /** Forgets the keys (a delivery that failed may be delivered again). */
  forget(keys: string[]): void {
    for (const k of keys) this.#seen.delete(k);
  }
}
