/**
 * The time and the timers of code whose timing is its job (the idle collector, the socket
 * thread's read batches): the process's own, or a clock a test moves by hand, so that what happens
 * when is checked without waiting on a loaded machine's timers.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` once after `ms`; the timer does not keep the process alive. */
  after(fn: () => void, ms: number): unknown;
  /** Cancels a timer `after` returned (undefined: none). */
  cancel(id: unknown): void;
}

/** The process's clock: `performance.now()` and unreferenced timers. */
export const realClock: Clock = {
  now: () => performance.now(),
  after(fn, ms) {
    const id = setTimeout(fn, ms);
    Deno.unrefTimer(id);
    return id;
  },
  cancel: (id) => clearTimeout(id as ReturnType<typeof setTimeout> | undefined),
};
