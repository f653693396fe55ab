import { LRUCache } from "lru-cache";

/** How heavy each value is and how much weight the cache holds at most (bytes of images). */
interface Weights<V> {
  weigh: (value: V) => number;
  maxWeight: number;
}

/**
 * A bounded least-recently-used cache whose entries expire after `ttlMs` (lru-cache): at most
 * `max` entries, and with `weights` at most that much weight; a value heavier than the whole
 * cache is not kept. `now` is the clock (tests move it).
 */
export function lruCache<V extends object>(
  max: number,
  ttlMs: number,
  now: () => number = () => Date.now(),
  weights?: Weights<V>,
): LRUCache<string, V> {
  const options: LRUCache.Options<string, V, unknown> = {
    max: Number.isFinite(max) ? max : undefined,
    ttl: ttlMs,
    // Read the clock on every check: a cached "now" would hold a timer open.
    ttlResolution: 0,
    perf: { now },
  } as LRUCache.Options<string, V, unknown>;
  if (weights) {
    options.maxSize = weights.maxWeight;
    options.maxEntrySize = weights.maxWeight;
    options.sizeCalculation = (v) => Math.max(1, weights.weigh(v));
  }
  return new LRUCache<string, V>(options);
}

/** Viewers remembered per cached entry at most; past it, a viewer just gets no `X-Cached`. */
const VIEWERS_PER_ENTRY = 256;

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
