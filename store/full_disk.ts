/**
 * How IRC lines wait out a disk that refuses writes. A line that needs a row (a new private
 * conversation, a join, a topic) waits for room and is tried again every `retryMs`, and the
 * connection's later lines wait behind it in order (store/patient.ts), as they wait out a
 * database that does not answer: a disk filled for a moment (a backup, a log rotated late) loses
 * nothing. But a disk may stay full for hours, and a connection held that long stops being read
 * and is dropped by its server with everything in flight; so once the disk has refused for
 * `waitMs`, what needs a row is refused at once (the line is lost and logged, the connection
 * stays), until the disk has taken writes again. The messages themselves are the writer's to
 * hold, with their own bound.
 */

import type { Recovery } from "./mod.ts";

/** What a refused call waits for before it is made again: true to try, false when closing. */
type Retry = Promise<boolean>;

/** Tuning; the defaults are the product's, a test shortens them. */
interface FullDiskTiming {
  /** How often a waiting call is made again. */
  retryMs: number;
  /** How long into a spell of refusals calls still wait; past it they are refused at once. */
  waitMs: number;
}

const FULL_DISK_TIMING: FullDiskTiming = { retryMs: 1000, waitMs: 60_000 };

/** The waits of one store. */
interface FullDiskWaits {
  /** For a call the disk refused: the wait before trying it again, or undefined to give up. */
  retry(): Retry | undefined;
  /** The same, as the store's `recovery` answers it. */
  recovery(): Recovery | undefined;
  /** Ends every wait (false: give up); later refusals are not waited out. */
  close(): void;
}

/** The waits for one store's calls that its disk refused, as this module's head says. */
export function fullDiskWaits(timing: FullDiskTiming = FULL_DISK_TIMING): FullDiskWaits {
  /** When the present spell of refusals began, and when the last refusal came. */
  let spellStart = 0;
  let lastRefusal = -Infinity;
  let closed = false;
  /** One wait shared by every call refused meanwhile: they are tried again together. */
  let shared:
    | { retry: Retry; resolve: (again: boolean) => void; timer: ReturnType<typeof setTimeout> }
    | undefined;
  return {
    retry() {
      if (closed) return undefined;
      const now = performance.now();
      // Calls that succeed say nothing here: no refusal for as long as a spell's wait means the
      // disk took what came, and the next refusal begins a new spell. (A disk full again sooner
      // counts as the same spell: its lines are refused at once, not waited for.)
      if (now - lastRefusal >= timing.waitMs) spellStart = now;
      lastRefusal = now;
      if (now - spellStart >= timing.waitMs) return undefined;
      if (shared) return shared.retry;
      const { promise, resolve } = Promise.withResolvers<boolean>();
      const timer = setTimeout(() => {
        shared = undefined;
        resolve(true);
      }, timing.retryMs);
      shared = { retry: promise, resolve, timer };
      return promise;
    },
    recovery() {
      const retry = this.retry();
      return retry && { retry, waitingFor: "room on the disk" };
    },
    close() {
      closed = true;
      if (!shared) return;
      clearTimeout(shared.timer);
      shared.resolve(false);
      shared = undefined;
    },
  };
}
