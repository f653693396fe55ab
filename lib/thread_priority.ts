/**
 * Background threads yield the CPU to the ones users wait on. The search indexer indexes every
 * message a second time after it is stored; during an IRC burst on two cores it took half a core
 * from the main thread, which stores the burst and answers the API (docs/performance.md,
 * "IRC bursts"). At nice 10 the kernel gives it about a tenth of a contended core and all of an idle
 * one, so search catches up after the burst (a search waits up to 2 s for it) instead of slowing
 * the burst down.
 */
import { getPriority, setPriority } from "node:os";

/**
 * How much lower background threads run than the process (nice values: 0 default, 19 lowest).
 *
 * @internal test seam
 */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's CPU priority `by` below the one it started with (a daemon run at
 * nice 5 gets its indexer at 15: never above the rest of the process); true when done. Only on
 * Linux, where a nice value belongs to a thread: elsewhere `setpriority` would lower the whole
 * process. A thread cannot raise it again without privileges, so only threads that do nothing
 * else urgent call this.
 */
export function lowerThreadPriority(by = BACKGROUND_NICE): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    // 0: the calling thread, which started at its creator's value.
    setPriority(0, Math.min(19, getPriority(0) + by));
    return true;
  } catch {
    return false; // no permission to ask (a sandbox); the thread runs at the default priority
  }
}
