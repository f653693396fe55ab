/**
 * Memory a burst grew, given back: V8's memory-reducing collection, then the C allocator's free
 * pages (glibc's `malloc_trim`). One place for the main thread (lib/idle_gc.ts), the search
 * indexer and the IRC socket thread (both workers import this module alone: the compiled binary
 * embeds it for them, scripts/compile.ts).
 *
 * The trim: After a burst,
 * SQLite's page caches (`PRAGMA shrink_memory`), the IRC socket thread's chunks and the runtime's
 * buffers are freed, but glibc keeps freed memory inside its arenas for reuse, and only a trim
 * hands back what is not at the top of one. Measured 30 s after a 200,000-line flood: 183 MB
 * resident after the memory-reducing collection, 135 MB after the trim (docs/performance.md).
 * Where there is no glibc (musl, macOS) or FFI is not allowed, nothing happens.
 */

type Trim = () => void;
let trim: Trim | null | undefined;

/**
 * Trims every malloc arena; returns whether a trim ran.
 *
 * @internal test seam
 */
export function trimMalloc(): boolean {
  if (trim === undefined) {
    try {
      const libc = Deno.dlopen("libc.so.6", {
        malloc_trim: { parameters: ["usize"], result: "i32" },
      });
      trim = () => void libc.symbols.malloc_trim(0n);
    } catch {
      trim = null;
    }
  }
  trim?.();
  return trim !== null;
}

/** What `gc()` accepts (V8's gc extension). */
interface GcOptions {
  type: "major";
  execution: "sync";
  flavor: "last-resort";
}

/**
 * A memory-reducing collection: it also shrinks the young generation and hands free pages back
 * to the system. A plain `gc()` frees objects but keeps the pages (measured: a heap grown to
 * 650 MB stays at 800 MB RSS after a plain `gc()`, drops to 60 MB after this one).
 */
const LAST_RESORT: GcOptions = { type: "major", execution: "sync", flavor: "last-resort" };

/** Whether this thread can collect (started with `--v8-flags=--expose-gc`). */
export function canCollect(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === "function";
}

/**
 * A memory-reducing collection of this thread's heap, then a trim of every malloc arena. `gc`
 * exists only with `--v8-flags=--expose-gc` (`deno task start`, the compiled binary, the tests'
 * daemon); without it nothing happens and this returns false.
 */
export function collectAndTrim(): boolean {
  const gc = (globalThis as { gc?: (options: GcOptions) => void }).gc;
  if (typeof gc !== "function") return false;
  gc(LAST_RESORT);
  trimMalloc();
  return true;
}
