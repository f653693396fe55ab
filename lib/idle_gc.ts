/**
 * A full garbage collection once a burst is over. A burst (an IRC flood read ahead and stored)
 * grows the JavaScript heap by a hundred MB and more, and V8 gives it back only after a major
 * collection, which an idle process may not run for minutes (docs/performance.md, "IRC bursts").
 * So when every burst has been quiet for a second, ask for one. `gc` exists only with
 * `--v8-flags=--expose-gc` (the `start` task, the compiled binary, the tests' daemon); without
 * it this does nothing.
 */
import { log } from "./log.ts";
import { collectAndTrim } from "./malloc_trim.ts";
import { type Clock, realClock } from "./clock.ts";

/** Quiet time after the last burst before collecting. */
const QUIET_MS = 1000;
/** Collections are at least this far apart (each one stops the thread for tens of ms). */
const MIN_GAP_MS = 10_000;

/** Counts bursts under way and collects once none has been for `quietMs`. */
export class IdleCollector {
  #collect: () => void;
  #quietMs: number;
  #gapMs: number;
  #clock: Clock;
  #bursts = 0;
  #timer: unknown;
  #last = -Infinity;
  #minBytes: number;
  /** Bytes read since the last collection. */
  #bytes = 0;
  /** A burst for a given time (the start) collects after it whatever was read. */
  #forced = false;

  #smallGapMs: number;

  /**
   * @param minBytes read since the last collection for a burst's end to call for one at once:
   *   with thousands of connections every second brings a few keepalives (each a "burst" of a
   *   line), and a full collection of a large heap every `gapMs` for them would be most of the
   *   idle CPU. After less, a collection waits until the last one is `smallGapMs` old.
   */
  constructor(
    collect: () => void,
    quietMs = QUIET_MS,
    gapMs = MIN_GAP_MS,
    clock: Clock = realClock,
    minBytes = 0,
    smallGapMs = 0,
  ) {
    this.#collect = collect;
    this.#quietMs = quietMs;
    this.#gapMs = gapMs;
    this.#clock = clock;
    this.#minBytes = minBytes;
    this.#smallGapMs = smallGapMs;
  }

  #lastRead = -Infinity;

  /**
   * Data arrived (a socket read of `bytes`, cheap: no timer). A collection waits for `quietMs`
   * without any, so that a flood read as fast as it comes, with no backlog to call a burst, is not
   * stopped for a few hundred ms by a collection in the middle of it (the server drops a reader
   * that lags).
   */
  read(bytes = 0): void {
    this.#lastRead = this.#clock.now();
    this.#bytes += bytes;
  }

  /** A burst began: no collection until it ends. */
  started(): void {
    this.#bursts++;
    this.#clock.cancel(this.#timer);
    this.#timer = undefined;
  }

  /** A burst ended (each `started` is matched by one `ended`). */
  ended(): void {
    this.#bursts = Math.max(0, this.#bursts - 1);
    this.due();
  }

  /** A collection is wanted once no burst is under way and reads have been quiet for `quietMs`. */
  due(): void {
    if (this.#bursts > 0) return;
    const small = this.#bytes < this.#minBytes && !this.#forced;
    if (small && this.#clock.now() - this.#last < this.#smallGapMs) return;
    this.#arm(this.#quietMs);
  }

  /** A burst that ends by itself after `ms` (the daemon's start: modules, migrations, logins). */
  burstFor(ms: number): void {
    this.#forced = true;
    this.started();
    this.#clock.after(() => this.ended(), ms);
  }

  #hooks: (() => void)[] = [];

  /**
   * Runs `fn` before each collection (e.g. a SQLite connection giving back its page cache);
   * returns what stops it.
   */
  beforeCollect(fn: () => void): () => void {
    this.#hooks.push(fn);
    return () => {
      this.#hooks = this.#hooks.filter((h) => h !== fn);
    };
  }

  #arm(ms: number): void {
    this.#clock.cancel(this.#timer);
    this.#timer = this.#clock.after(() => this.#fire(), ms);
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#bursts > 0) return;
    const now = this.#clock.now();
    const reading = this.#lastRead + this.#quietMs - now;
    if (reading > 0) return this.#arm(reading);
    const wait = this.#last + this.#gapMs - now;
    if (wait > 0) return this.#arm(wait);
    this.#last = now;
    this.#bytes = 0;
    this.#forced = false;
    for (const fn of this.#hooks) {
      try {
        fn();
      } catch (err) {
        log.warn("before a collection", { error: String(err) });
      }
    }
    this.#collect();
  }
}

/** The collection after a burst (lib/malloc_trim.ts), when the process can collect. */
function collectGarbage(): void {
  const start = performance.now();
  if (collectAndTrim()) {
    log.debug("collected after a burst", { ms: Math.round(performance.now() - start) });
  }
}

/** What the main thread reads from IRC before a burst's end calls for a collection at once. */
const BURST_BYTES = 4 * 1024 * 1024;
/** After smaller bursts, collections are this far apart. */
const SMALL_GAP_MS = 5 * 60_000;

/** The process's collector: IRC transports report their bursts to it. */
export const idleGc = new IdleCollector(
  collectGarbage,
  QUIET_MS,
  MIN_GAP_MS,
  realClock,
  BURST_BYTES,
  SMALL_GAP_MS,
);
