/** The SQLite writer's timestamps: the shared rule, with the look for a free millisecond in SQL. */
import type { DatabaseSync } from "node:sqlite";
import { MAX_TS, MAX_TS_PROBES, MS, TimestampRule } from "../../timestamps.ts";

/**
 * Hands out timestamps (TimestampRule over SQLite). `commit` writes what the writer holds, so
 * that a look for a free millisecond in the past sees it.
 */
export function timestamps(db: DatabaseSync, commit: () => void) {
  // Rows stored before times were bounded may lie outside it; they must not push new ones out.
  const maxTs = db.prepare(
    "SELECT max(ts) AS ts FROM messages WHERE conversation = ? AND ts BETWEEN 0 AND ?",
  );
  const tsTaken = db.prepare("SELECT 1 AS x FROM messages WHERE conversation = ? AND ts = ?");
  const rule = new TimestampRule();

  /** A timestamp no other message of the conversation has, in whole milliseconds. */
  return function uniqueTs(conversation: number, wanted: number): number {
    if (!rule.started(conversation)) {
      rule.start(conversation, (maxTs.get(conversation, MAX_TS) as { ts: number | null }).ts ?? 0);
    }
    const placed = rule.place(conversation, wanted);
    if (typeof placed === "number") return placed;
    commit();
    let free: number | undefined;
    for (let tries = 0, ts = placed.from; tries < MAX_TS_PROBES; tries++, ts += MS) {
      if (!tsTaken.get(conversation, ts)) {
        free = ts;
        break;
      }
    }
    return rule.placeReplay(placed, free);
  };
}
