/** The writer's timestamps: the same rules as store/messages/timestamps.ts, over PostgreSQL. */
import { nowMicros } from "../../lib/time.ts";
import { ARRIVAL_WINDOW, MAX_TS, MAX_TS_PROBES, MS, validTs } from "../messages/timestamps.ts";
import type { Sql } from "./db.ts";

/**
 * Hands out timestamps, one call at a time (the writer serialises them). `commit` writes what
 * the writer holds, so that a look for a free millisecond in the past sees it.
 */
export function pgTimestamps(sql: Sql, commit: () => Promise<void>) {
  /** The newest timestamp handed out per conversation. */
  const lastTs = new Map<number, number>();
  /**
   * Per conversation, the first millisecond of the run that ends at its newest (every whole
   * millisecond from it to the newest is taken), as in store/messages/timestamps.ts: a line of a
   * burst spread more than ARRIVAL_WINDOW ahead of the clock goes after the newest at once,
   * instead of a commit and a query each.
   */
  const runStart = new Map<number, number>();

  /** The conversation's newest stored time within the storable range. */
  async function newest(conversation: number): Promise<number> {
    const [row] = await sql`SELECT max(ts) AS ts FROM messages
      WHERE conversation = ${conversation} AND ts BETWEEN 0 AND ${MAX_TS}`;
    return row?.ts ?? 0;
  }

  /** The first free millisecond from `ts` on, among the next MAX_TS_PROBES (one query). */
  async function freeFrom(conversation: number, ts: number): Promise<number | undefined> {
    await commit();
    const taken = new Set(
      (await sql`SELECT ts FROM messages WHERE conversation = ${conversation}
        AND ts >= ${ts} AND ts < ${ts + MAX_TS_PROBES * MS}`).map((r) => r.ts as number),
    );
    for (let i = 0; i < MAX_TS_PROBES; i++, ts += MS) if (!taken.has(ts)) return ts;
    return undefined;
  }

  /** A timestamp no other message of the conversation has, in whole milliseconds. */
  return async function uniqueTs(conversation: number, wanted: number): Promise<number> {
    let last = lastTs.get(conversation);
    if (last === undefined) {
      last = await newest(conversation);
      if (last % MS === 0 && last > 0) runStart.set(conversation, last);
    }
    let ts = validTs(wanted) ? wanted : nowMicros();
    ts -= ts % MS;
    if (ts > last) runStart.set(conversation, ts); // a new run
    else {
      const next = last - (last % MS) + MS; // the millisecond after the newest
      const run = runStart.get(conversation);
      // Same moment, or behind a burst spread ahead: keep arrival order.
      if (last - ts < ARRIVAL_WINDOW || (run !== undefined && ts >= run)) ts = next;
      else {
        const free = await freeFrom(conversation, ts); // a replay: a free millisecond in place
        ts = free !== undefined && free < last ? free : next;
      }
    }
    lastTs.set(conversation, Math.max(last, ts));
    return ts;
  };
}
