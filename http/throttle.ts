/** Failed-login throttling: a sliding window of failures per email and per client address. */

/** Counts failures per key and refuses a key once it reaches `max` within `windowMs`. */
export class FailureThrottle {
  #failures = new Map<string, number[]>();
  constructor(readonly max = 10, readonly windowMs = 10 * 60 * 1000) {}

  #recent(key: string, now: number): number[] {
    const list = (this.#failures.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length) this.#failures.set(key, list);
    else this.#failures.delete(key);
    return list;
  }

  /** True when any of the keys has used up its failures. */
  blocked(keys: string[], now = Date.now()): boolean {
    return keys.some((k) => this.#recent(k, now).length >= this.max);
  }

  /** Records one failure against each key. */
  fail(keys: string[], now = Date.now()): void {
    for (const k of keys) this.#failures.set(k, [...this.#recent(k, now), now]);
    // Bound memory under a flood of distinct keys: forget the oldest entries.
    if (this.#failures.size > 100_000) {
      for (const k of [...this.#failures.keys()].slice(0, 10_000)) this.#failures.delete(k);
    }
  }

  /** Forgets the failures of a key (after a successful login). */
  clear(key: string): void {
    this.#failures.delete(key);
  }
}
