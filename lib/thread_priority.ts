/**
 * Background threads yield the CPU to the ones users wait on. The search indexer indexes every
 * message a second time after it is stored; during an IRC burst on two cores it took half a core
 * from the main thread, which stores the burst and answers the API (docs/performance.md,
 * "Phase F"). At nice 10 the kernel gives it about a tenth of a contended core and all of an idle
 * one, so search catches up after the burst (a search waits up to 2 s for it) instead of slowing
 * the burst down.
 */
import { setPriority } from "node:os";

/** The nice value of background threads (0 is the default, 19 the lowest priority). */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's CPU priority; true when done. Only on Linux, where a nice value
 * belongs to a thread: elsewhere `setpriority` would lower the whole process. A thread cannot
 * raise it again without privileges, so only threads that do nothing else urgent call this.
 */
export function lowerThreadPriority(nice = BACKGROUND_NICE): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    setPriority(0, nice); // 0: the calling thread
    return true;
  } catch {
    return false; // no permission to ask (a sandbox); the thread runs at the default priority
  }
}
