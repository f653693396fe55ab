/**
 * Notifications: the user's highlighted messages, and a read marker (the newest highlight's time
 * when the user last marked them read) from which the unread count follows.
 */
import type { DatabaseSync } from "node:sqlite";
import type { MessageNotifications } from "../../message_types.ts";
import { JOIN_WHERE, newestFirstPage, type Row, WHERE_COLUMNS } from "../../rows.ts";

/** Notifications over `messages`; `commit` lands the writer's pending rows first. */
export function sqliteNotifications(db: DatabaseSync, commit: () => void): MessageNotifications {
  const list = db.prepare(
    `SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
     WHERE m.user_id = ? AND m.highlight = 1 AND m.ts < ? ORDER BY m.ts DESC LIMIT ?`,
  );
  const readMarker = db.prepare("SELECT last_ts FROM notification_reads WHERE user_id = ?");
  const unreadCount = db.prepare(
    "SELECT count(*) AS n FROM messages WHERE user_id = ? AND highlight = 1 AND ts > ?",
  );
  const lastHighlight = db.prepare(
    "SELECT max(ts) AS ts FROM messages WHERE user_id = ? AND highlight = 1",
  );
  const setMarker = db.prepare(
    `INSERT INTO notification_reads (user_id, last_ts) VALUES (?, ?)
     ON CONFLICT(user_id) DO UPDATE SET last_ts = max(last_ts, excluded.last_ts)`,
  );

  return {
    list(userId, limit, before = Number.MAX_SAFE_INTEGER) {
      commit();
      const got = list.all(userId, before, limit + 1) as unknown as Row[];
      return Promise.resolve(newestFirstPage(got, limit));
    },
    unread(userId) {
      commit();
      const marker = (readMarker.get(userId) as { last_ts: number } | undefined)?.last_ts ?? 0;
      return Promise.resolve((unreadCount.get(userId, marker) as { n: number }).n);
    },
    markRead(userId) {
      commit();
      const last = (lastHighlight.get(userId) as { ts: number | null }).ts ?? 0;
      setMarker.run(userId, last);
      return Promise.resolve();
    },
  };
}
