/** A small in-memory LRU cache whose entries also expire. */

/** Bounded LRU with a time to live. */
export class LruCache<V> {
  #map = new Map<string, { value: V; expires: number }>();
  constructor(readonly max: number, readonly ttlMs: number) {}

  /** The live value for a key (and marks it recently used). */
  get(key: string, now = Date.now()): V | undefined {
    const hit = this.#map.get(key);
    if (!hit) return undefined;
    this.#map.delete(key);
    if (hit.expires <= now) return undefined;
    this.#map.set(key, hit); // Map keeps insertion order: re-inserting makes it the newest
    return hit.value;
  }

  /** Stores a value, dropping the least recently used entry when full. */
  set(key: string, value: V, now = Date.now()): void {
    this.#map.delete(key);
    this.#map.set(key, { value, expires: now + this.ttlMs });
    while (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value!);
  }

  /** How many entries are held. */
  get size(): number {
    return this.#map.size;
  }
}
