/**
 * What `GET /metrics` reports, gathered where it happens at the cost of an addition or an empty
 * call: counters as plain numbers, and observers that do nothing until the metrics module
 * (metrics/prometheus.ts, loaded only with PARLEY_METRICS=1) puts its histograms behind them. So
 * a daemon without metrics never loads prom-client, and its hot paths pay next to nothing.
 *
 * Nothing here may carry user data: operations are route patterns, never paths with their values.
 */

/**
 * IRC lines read from and written to servers by this process, since it started, and the reads
 * (socket reads handed to the main thread) the lines came in: each read has a cost of its own
 * in every thread, so lines per read says much of what a line costs (docs/performance.md).
 */
export const ircLines = { in: 0, out: 0, reads: 0 };

/** Timings and sizes that go into histograms when metrics are on. */
interface Observers {
  /** An HTTP request answered: its route pattern, method, status and time taken (seconds). */
  httpRequest(operation: string, method: string, status: number, seconds: number): void;
  /** A batch of messages committed by the store's writer, and how long the commit took. */
  storeBatch(messages: number, seconds: number): void;
}

const NONE: Observers = { httpRequest() {}, storeBatch() {} };

/** The observers in force: empty ones unless metrics are on. */
export const observe: Observers = { ...NONE };

/** Puts `to` behind `observe` (the metrics module at start), or the empty ones back. */
export function setObservers(to: Observers | undefined): void {
  Object.assign(observe, to ?? NONE);
}
