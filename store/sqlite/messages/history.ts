/** The history capability over SQLite (store/history_types.ts). */
import type { DatabaseSync } from "node:sqlite";
import type { HistoryTarget, MessageHistory } from "../../history_types.ts";
import { FIRST_EVENT_CODE, TYPE_CODE } from "../../../protocol/messages.ts";
import { LINE_COLUMNS, type LineRow, lineTypes, toLine, typeBound } from "../../history_rows.ts";

/** The capability over `messages`, `conversations` and `client_positions`; `commit` first. */
export function sqliteHistory(db: DatabaseSync, commit: () => void): MessageHistory {
  const range = (order: "ASC" | "DESC") =>
    db.prepare(
      `SELECT ${LINE_COLUMNS} FROM messages WHERE conversation = ? AND ts > ? AND ts < ?
        AND (type < ? OR type = ?) ORDER BY ts ${order} LIMIT ?`,
    );
  const oldest = range("ASC");
  const newest = range("DESC");
  const targetsBy = (order: "ASC" | "DESC") =>
    db.prepare(
      `SELECT * FROM (
         SELECT c.id AS conversation, coalesce(nullif(c.name, ''), c.conversation_id) AS name,
           (SELECT m.ts FROM messages m WHERE m.conversation = c.id AND m.ts > ? AND m.ts < ?
             AND m.type < ? AND m.type != ${TYPE_CODE.gap} ORDER BY m.ts DESC LIMIT 1) AS latest
         FROM conversations c WHERE c.connection = ? AND c.conversation_id != ''
       ) WHERE latest IS NOT NULL ORDER BY latest ${order} LIMIT ?`,
    );
  const targetsNewest = targetsBy("DESC");
  const targetsOldest = targetsBy("ASC");
  const marker = db.prepare("SELECT last_read, unread FROM conversations WHERE id = ?");
  const after = db.prepare(
    `SELECT count(*) AS n FROM (SELECT 1 FROM messages
      WHERE conversation = ? AND ts > ? AND type < ${FIRST_EVENT_CODE} AND lower(sender) != ?
      LIMIT ?)`,
  );
  const read = db.prepare("UPDATE conversations SET last_read = ?, unread = ? WHERE id = ?");
  const serverIdAt = db.prepare(
    `SELECT m.server_msgid FROM messages m JOIN conversations c ON c.id = m.conversation
      WHERE m.conversation = ? AND c.connection = ? AND m.ts >= ? AND m.ts < ?
        AND m.server_msgid IS NOT NULL LIMIT 1`,
  );
  const byServerId = db.prepare(
    `SELECT min(ts) AS ts FROM messages
      WHERE conversation = ? AND server_msgid = ? AND type < ${FIRST_EVENT_CODE}`,
  );
  const position = db.prepare(
    "SELECT ts FROM client_positions WHERE connection = ? AND client = ?",
  );
  const setPosition = db.prepare(
    `INSERT INTO client_positions (connection, client, ts) VALUES (?, ?, ?)
     ON CONFLICT (connection, client) DO UPDATE SET ts = max(ts, excluded.ts)`,
  );

  return {
    lines(conversation, r) {
      commit();
      const st = r.newest ? newest : oldest;
      const rows = st.all(
        conversation,
        r.after,
        r.before,
        ...lineTypes(r.events),
        r.limit,
      ) as unknown[];
      const lines = (rows as LineRow[]).map(toLine);
      return Promise.resolve(r.newest ? lines.reverse() : lines);
    },
    targets(connection, r) {
      commit();
      const st = r.newest ? targetsNewest : targetsOldest;
      const rows = st.all(r.after, r.before, typeBound(r.events), connection, r.limit) as unknown;
      const out = rows as HistoryTarget[];
      return Promise.resolve(r.newest ? out.reverse() : out);
    },
    markRead(conversation, ts, own = "") {
      commit();
      const row = marker.get(conversation) as { last_read: number; unread: number } | undefined;
      if (!row) return Promise.resolve(undefined);
      if (ts <= row.last_read) {
        return Promise.resolve({ lastRead: row.last_read, unread: row.unread });
      }
      // Unread is what came after the marker but the user's own lines (those from its nick now),
      // counted no further than the count already kept: a marker never adds unread messages.
      const { n } = after.get(conversation, ts, own.toLowerCase(), row.unread) as { n: number };
      read.run(ts, n, conversation);
      return Promise.resolve({ lastRead: ts, unread: n });
    },
    serverMsgid(connection, conversation, ms) {
      commit();
      const row = serverIdAt.get(conversation, connection, ms * 1000, ms * 1000 + 1000) as
        | { server_msgid: string }
        | undefined;
      return Promise.resolve(row?.server_msgid);
    },
    byServerMsgid(conversation, ids) {
      commit();
      const out = new Map<string, number>();
      for (const id of new Set(ids)) {
        const row = byServerId.get(conversation, id) as { ts: number | null };
        if (row.ts !== null) out.set(id, row.ts);
      }
      return Promise.resolve(out);
    },
    position(connection, client) {
      const row = position.get(connection, client) as { ts: number } | undefined;
      return Promise.resolve(row?.ts);
    },
    setPosition(connection, client, ts) {
      setPosition.run(connection, client, ts);
      return Promise.resolve();
    },
  };
}
