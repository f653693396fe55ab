/**
 * Retention on PostgreSQL: the oldest messages go a small batch at a time, through the `ts` index
 * (migration 018), each batch one short transaction. The search column is in the row, so the
 * index loses them with it. One node of a cluster prunes at a time: the pass holds a session
 * advisory lock on a connection of its own, and another node's pass finds it taken and skips.
 */
import type { Sql } from "./db.ts";
import { FIRST_EVENT_CODE } from "../../protocol/messages.ts";
import { type MessageRetention } from "../message_types.ts";
import { notifyUnread, UNREAD_LOWERED, type UnreadCounts, type UnreadEntry } from "./unread.ts";

/** The advisory lock key of the retention pass ("prune" in ASCII). */
const RETENTION_LOCK = 0x70_7275_6e65;

/** The retention capability; `unread` is the writer's memory of the counts it changes. */
export function pgRetention(sql: Sql, unread: UnreadCounts): MessageRetention {
  return {
    async pruneBatch(before, limit) {
      let gone = 0;
      let entries: UnreadEntry[] = [];
      await sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        // Rows another transaction holds (being deleted with their conversation) are left to
        // the next batch rather than waited on.
        const lost = await tx<{ conversation: number; gone: number; unread: number }[]>`
          WITH doomed AS (
            SELECT id FROM messages WHERE ts < ${before} ORDER BY ts LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          ), gone AS (
            DELETE FROM messages m USING doomed d WHERE m.id = d.id
            RETURNING m.conversation, m.ts, m.type
          )
          SELECT g.conversation, count(*)::int AS gone,
            (count(*) FILTER (WHERE g.type < ${FIRST_EVENT_CODE} AND g.ts > c.last_read))::int
              AS unread
          FROM gone g JOIN conversations c ON c.id = g.conversation
          GROUP BY g.conversation ORDER BY g.conversation`;
        for (const l of lost) gone += l.gone;
        entries = lost.filter((l) => l.unread > 0).map((l) => [l.conversation, l.unread]);
        if (!entries.length) return;
        // Unread messages that are gone no longer count, lowered rather than set: a writer's
        // batch adding to the same count may commit before or after. Locked in id order, as
        // the writer's batches lock them, so the two never wait on each other in a cycle.
        const ids = entries.map(([id]) => id);
        await tx`SELECT 1 FROM conversations WHERE id = ANY(${ids}::bigint[]) ORDER BY id
          FOR NO KEY UPDATE`;
        await tx`UPDATE conversations c SET unread = greatest(c.unread - v.n, 0)
          FROM unnest(${ids}::bigint[], ${entries.map(([, n]) => n)}::int[]) AS v(id, n)
          WHERE c.id = v.id AND c.unread > 0`;
        await notifyUnread(tx, unread.origin, entries, UNREAD_LOWERED);
      });
      unread.lower(entries);
      return gone;
    },
    async exclusive(pass) {
      const session = await sql.reserve();
      try {
        const [{ locked }] =
          await session`SELECT pg_try_advisory_lock(${RETENTION_LOCK}) AS locked`;
        if (!locked) return false;
        try {
          await pass();
        } finally {
          await session`SELECT pg_advisory_unlock(${RETENTION_LOCK})`;
        }
        return true;
      } finally {
        session.release();
      }
    },
  };
}
