/** The writer's timestamps: store/timestamps.ts's TimestampRule, over PostgreSQL. */
import { MAX_TS_PROBES, MS, TimestampRule } from "../timestamps.ts";
import type { Sql } from "./db.ts";

/**
 * Hands out timestamps, one call at a time per conversation (the writer serialises each
 * conversation's). `newest` reads a conversation's newest stored time within the storable range
 * (store/pg/first_sight.ts); `commit` writes what the writer holds, so that a look for a free
 * millisecond in the past sees it.
 */
export function pgTimestamps(
  sql: Sql,
  newest: (conversation: number) => Promise<number>,
  commit: () => Promise<void>,
) {
  const rule = new TimestampRule();

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
    if (!rule.started(conversation)) rule.start(conversation, await newest(conversation));
    const placed = rule.place(conversation, wanted);
    if (typeof placed === "number") return placed;
    return rule.placeReplay(placed, await freeFrom(conversation, placed.from));
  };
}
