/** Notifications in PostgreSQL: highlighted messages and a read marker per user, as in SQLite. */
import type { MessageNotifications } from "../message_types.ts";
import { JOIN_WHERE, newestFirstPage, type Row } from "../rows.ts";
import type { Sql } from "./db.ts";
import { PG_COLUMNS } from "./paging.ts";

/** Notifications over `messages`; `settled` lands the writer's pending rows first. */
export function pgNotifications(sql: Sql, settled: () => Promise<void>): MessageNotifications {
  return {
    async list(userId, limit, before = Number.MAX_SAFE_INTEGER) {
      await settled();
      const got = await sql.unsafe<Row[]>(
        `SELECT ${PG_COLUMNS}, k.connection_id, c.conversation_id FROM messages m ${JOIN_WHERE}
         WHERE m.user_id = $1 AND m.highlight AND m.ts < $2 ORDER BY m.ts DESC LIMIT $3`,
        [userId, before, limit + 1],
      );
      return newestFirstPage(got, limit);
    },
    async unread(userId) {
      await settled();
      const [row] = await sql`SELECT count(*)::int AS n FROM messages
        WHERE user_id = ${userId} AND highlight AND ts > coalesce(
          (SELECT last_ts FROM notification_reads WHERE user_id = ${userId}), 0)`;
      return row.n;
    },
    async markRead(userId) {
      await settled();
      // The marker only moves forward (two devices marking at once).
      await sql`INSERT INTO notification_reads (user_id, last_ts)
        SELECT ${userId}, coalesce(max(ts), 0) FROM messages WHERE user_id = ${userId} AND highlight
        ON CONFLICT (user_id) DO UPDATE
          SET last_ts = greatest(notification_reads.last_ts, excluded.last_ts)`;
    },
  };
}
