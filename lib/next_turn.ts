/**
 * A turn of the event loop for work done in slices (a burst of IRC lines). Measured in Deno 2.9.6:
 * - `setTimeout(0)` lets every kind of I/O through, but sleeps 1-3 ms per turn: with 4 ms slices a
 *   third of a burst's time is spent asleep;
 * - `setImmediate` (or a `MessageChannel` message) costs nothing, and workers' messages (the IRC
 *   socket thread's chunks) still arrive between turns, but the runtime's own I/O (HTTP requests,
 *   sockets, timers) waits until the loop ends: a request takes up to 3 s.
 * So slices yield with `setImmediate`, and with a timer once TIMER_EVERY_MS has passed since the
 * last timer turn: the rest of the process waits at most about that long during a burst.
 */
import { setImmediate } from "node:timers";

/** Longest stretch of immediate turns before a timer turn lets the runtime's I/O through. */
const TIMER_EVERY_MS = 10;

let lastTimerTurn = performance.now();

/** Calls `fn` in a later turn of the event loop, without the timer's sleep when it can. */
export function nextTurn(fn: () => void): void {
  if (performance.now() - lastTimerTurn < TIMER_EVERY_MS) {
    setImmediate(fn);
    return;
  }
  setTimeout(() => {
    lastTimerTurn = performance.now();
    fn();
  }, 0);
}
