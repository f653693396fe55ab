/**
 * Lines handed to the handlers and not yet recorded: per connection, and summed over the process.
 * The transport holds its next slice back while a connection has too many (socket/transport.ts,
 * MAX_BACKLOG) or the process has; it waits to be woken, not on a timer: with thousands of
 * connections held behind a slow store (PostgreSQL during 10,000 connections' joins), each one
 * looking again every 2 ms kept the main thread busy doing nothing else.
 */

/**
 * Most lines handed over and not yet recorded in the whole process. Each connection's own bound
 * holds one flood; with thousands of connections their bounds together were gigabytes of parsed
 * events waiting for the store.
 *
 * @internal test seam
 */
export const PROCESS_MAX = 50_000;
/** Held connections are woken once the process's backlog is down to this. */
const PROCESS_RESUME = PROCESS_MAX * 0.8;

let total = 0;
/** Connections held by the process's bound. */
const heldByProcess = new Set<Backlog>();

/**
 * What the whole process has handed over and not yet recorded.
 *
 * @internal test seam
 */
export function processBacklog(): number {
  return total;
}

/** One connection's lines handed over and not yet recorded. */
export class Backlog {
  #n = 0;
  #max = Infinity;
  #wake?: () => void;

  get size(): number {
    return this.#n;
  }

  add(n = 1): void {
    this.#n += n;
    total += n;
  }

  done(n = 1): void {
    this.#n -= n;
    total -= n;
    if (this.#wake && this.#n < this.#max) {
      if (total < PROCESS_MAX) this.#resume();
      else heldByProcess.add(this);
    }
    if (heldByProcess.size && total <= PROCESS_RESUME) {
      for (const held of [...heldByProcess]) held.#retry();
    }
  }

  /**
   * Undefined when there is room for more (under `max` here and, when `shared`, under the
   * process's bound); else resolves once there is.
   */
  room(max: number, shared = true): Promise<void> | undefined {
    if (this.#n < max && (!shared || total < PROCESS_MAX)) return undefined;
    this.#max = max;
    return new Promise<void>((resolve) => {
      const before = this.#wake;
      this.#wake = () => {
        before?.();
        resolve();
      };
      if (this.#n < max) heldByProcess.add(this);
    });
  }

  #retry(): void {
    heldByProcess.delete(this);
    if (this.#n < this.#max) this.#resume();
  }

  #resume(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#max = Infinity;
    heldByProcess.delete(this);
    wake?.();
  }
}
