/**
 * The rule by which every backend's writer hands out timestamps: one free millisecond per message
 * and conversation.
 */
import { nowMicros } from "../lib/time.ts";

/** A millisecond in microseconds: the resolution of stored timestamps. */
export const MS = 1000;
/**
 * A message this much older than the conversation's newest is filed after it, in arrival order
 * (a burst spread a millisecond apart runs ahead of the clock); an older one is a replay and
 * keeps its own time.
 */
const ARRIVAL_WINDOW = 1_000_000;
/**
 * Latest timestamp stored (microseconds, about the year 2255): far below 2^53, so `ts + 1` and
 * every cursor computed from a stored time stay exact integers.
 */
export const MAX_TS = Number.MAX_SAFE_INTEGER - 2 ** 40;
/** Most milliseconds tried when looking for a free one in the past. */
export const MAX_TS_PROBES = 100;

/** Whether a wanted timestamp can be stored as it is. */
function validTs(ts: number): boolean {
  return Number.isSafeInteger(ts) && ts >= 0 && ts <= MAX_TS;
}

/** A line older than the run it falls behind: a free millisecond is looked for from `from`. */
interface Replay {
  conversation: number;
  /** The wanted millisecond, where the look starts. */
  from: number;
  /** The millisecond after the newest: taken when none is free (or the free one is later). */
  next: number;
  last: number;
}

/**
 * The rule by which both stores hand out timestamps, one free millisecond per message and
 * conversation, kept per conversation; each store only reads the newest stored time once and
 * looks for a free millisecond for a replay (its own I/O).
 *
 * Each message owns its millisecond, so a cursor cut to milliseconds (Convos's client sends three
 * decimals) still names exactly one message and scroll-back neither skips nor repeats
 * (docs/api.md). A burst faster than one line per millisecond is spread a millisecond apart. The
 * last line of defence against hostile times: anything outside [0, MAX_TS] becomes the current
 * time, and the search for a free millisecond is bounded, so no value reaches the database that
 * JavaScript cannot count with.
 */
export class TimestampRule {
  /** The newest timestamp handed out per conversation. */
  #last = new Map<number, number>();
  /**
   * Per conversation, the first millisecond of the run that ends at its newest: every whole
   * millisecond from it to the newest is taken. A burst spread ahead of the clock is one such
   * run, and a line of it that arrives more than ARRIVAL_WINDOW behind the newest would
   * otherwise commit and probe 100 taken milliseconds each time (~1 ms of CPU per line). (A
   * deleted message's millisecond inside a run is then not reused: the line goes after the newest.)
   */
  #runStart = new Map<number, number>();

  /** Whether the conversation's newest stored time has been told (`start`). */
  started(conversation: number): boolean {
    return this.#last.has(conversation);
  }

  /** The conversation's newest stored time within the storable range (0: none). */
  start(conversation: number, newest: number): void {
    this.#last.set(conversation, newest);
    if (newest % MS === 0 && newest > 0) this.#runStart.set(conversation, newest);
  }

  /** The timestamp for `wanted` (recorded), or the replay to look for a free millisecond for. */
  place(conversation: number, wanted: number): number | Replay {
    const last = this.#last.get(conversation) ?? 0;
    let ts = validTs(wanted) ? wanted : nowMicros();
    ts -= ts % MS;
    if (ts > last) {
      this.#runStart.set(conversation, ts); // a new run
    } else {
      const next = last - (last % MS) + MS; // the millisecond after the newest
      const run = this.#runStart.get(conversation);
      // A genuinely older message (server-time replay) keeps its time if one is free there.
      if (last - ts >= ARRIVAL_WINDOW && (run === undefined || ts < run)) {
        return { conversation, from: ts, next, last };
      }
      // Same moment, or behind a burst spread ahead: keep arrival order.
      ts = next;
    }
    this.#last.set(conversation, Math.max(last, ts));
    return ts;
  }

  /** The replay's timestamp (recorded): the free millisecond found, else after the newest. */
  placeReplay(r: Replay, free: number | undefined): number {
    const ts = free !== undefined && free < r.last ? free : r.next; // crowded: after the newest
    this.#last.set(r.conversation, Math.max(r.last, ts));
    return ts;
  }
}
