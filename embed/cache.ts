/** How heavy each value is and how much weight the cache holds at most (bytes of images). */
export interface Weights<V> {
  weigh: (value: V) => number;
  maxWeight: number;
}

/** A bounded least-recently-used cache whose entries expire. */
export class LruCache<V> {
  #map = new Map<string, { at: number; value: V; weight: number }>();
  #weight = 0;
  constructor(
    readonly max: number,
    readonly ttlMs: number,
    readonly now: () => number = () => Date.now(),
    readonly weights?: Weights<V>,
  ) {}

  #drop(key: string): void {
    const hit = this.#map.get(key);
    if (!hit) return;
    this.#map.delete(key);
    this.#weight -= hit.weight;
  }

  /** The live value for a key (and marks it recently used), or undefined. */
  get(key: string): V | undefined {
    const hit = this.#map.get(key);
    if (!hit) return undefined;
    this.#map.delete(key);
    if (this.now() - hit.at > this.ttlMs) {
      this.#weight -= hit.weight;
      return undefined;
    }
    this.#map.set(key, hit);
    return hit.value;
  }

  /**
   * Stores a value, evicting the least recently used entries while over the count or the weight;
   * a value heavier than the whole cache is not kept.
   */
  set(key: string, value: V): void {
    this.#drop(key);
    const weight = this.weights?.weigh(value) ?? 0;
    if (this.weights && weight > this.weights.maxWeight) return;
    this.#map.set(key, { at: this.now(), value, weight });
    this.#weight += weight;
    const limit = this.weights?.maxWeight ?? Infinity;
    while (this.#map.size > this.max || this.#weight > limit) {
      this.#drop(this.#map.keys().next().value!);
    }
  }

  /** Number of entries held (expired ones included until touched). */
  get size(): number {
    return this.#map.size;
  }

  /** The weight of the entries held. */
  get weight(): number {
    return this.#weight;
  }
}

/** Viewers remembered per cached entry at most; past it, a viewer just gets no `X-Cached`. */
export const VIEWERS_PER_ENTRY = 256;

/**
 * A cached answer and who has had it. A cache shared by all users must not tell one user what
 * another looked at: an answer says it came from the cache only to a user who has had it before.
 */
export class Viewed<V> {
  #viewers = new Set<number>();
  constructor(readonly value: V) {}

  /** Whether `viewer` has had this answer before. */
  seenBy(viewer: number): boolean {
    return this.#viewers.has(viewer);
  }

  /** Notes that `viewer` has had it. */
  see(viewer: number): void {
    if (this.#viewers.size < VIEWERS_PER_ENTRY) this.#viewers.add(viewer);
  }
}
