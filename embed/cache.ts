/** A bounded least-recently-used cache whose entries expire. */
export class LruCache<V> {
  #map = new Map<string, { at: number; value: V }>();
  constructor(
    readonly max: number,
    readonly ttlMs: number,
    readonly now: () => number = () => Date.now(),
  ) {}

  /** The live value for a key (and marks it recently used), or undefined. */
  get(key: string): V | undefined {
    const hit = this.#map.get(key);
    if (!hit) return undefined;
    this.#map.delete(key);
    if (this.now() - hit.at > this.ttlMs) return undefined;
    this.#map.set(key, hit);
    return hit.value;
  }

  /** Stores a value, evicting the least recently used entry when full. */
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, { at: this.now(), value });
    while (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value!);
  }

  /** Number of entries held (expired ones included until touched). */
  get size(): number {
    return this.#map.size;
  }
}
