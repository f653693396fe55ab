import { LRUCache } from "lru-cache";

/**
 * A least-recently-used cache (lru-cache) of at most `entries` entries: past it the entry used
 * longest ago goes, not the whole cache. With `ttlMs` an entry is gone that long after it was set
 * (a `set` may give its own `ttl`).
 *
 * The bound is a size of 1 per entry rather than lru-cache's `max`, which allocates its arrays for
 * every entry up front; these caches mostly stay small (one per connection, or one per process
 * holding the few users who are active).
 */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
  ttlMs?: number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({
    maxSize: entries,
    sizeCalculation: () => 1,
    ...(ttlMs ? { ttl: ttlMs } : {}),
    // Read the clock on every check: a cached "now" holds a timer open (a test's sanitizer sees it).
    ttlResolution: 0,
  });
}
