/** The history capability over PostgreSQL, as store/messages/history.ts does it for SQLite. */
import type { HistoryTarget, MessageHistory } from "../history_types.ts";
import { FIRST_EVENT_CODE, TYPE_CODE } from "../../protocol/messages.ts";
import { LINE_COLUMNS, lineTypes, toLine, typeBound } from "../history_rows.ts";
import { pgString, type Sql } from "./db.ts";
import { notifyUnread, type UnreadCounts, type UnreadEntry } from "./unread.ts";

/**
 * The capability over `messages`, `conversations` and `client_positions`; `settled` first, and
 * `unread` (the writer's counts) told of a count a read marker sets.
 */
export function pgHistory(
  sql: Sql,
  settled: () => Promise<void>,
  unread: UnreadCounts,
): MessageHistory {
  return {
    async lines(conversation, r) {
      await settled();
      const [bound, gap] = lineTypes(r.events);
      const rows = await sql.unsafe(
        `SELECT ${LINE_COLUMNS} FROM messages
          WHERE conversation = $1 AND ts > $2 AND ts < $3 AND (type < $4 OR type = $6)
          ORDER BY ts ${r.newest ? "DESC" : "ASC"} LIMIT $5`,
        [conversation, r.after, r.before, bound, r.limit, gap],
        { prepare: true },
      );
      const lines = rows.map((row) => toLine(row as never));
      return r.newest ? lines.reverse() : lines;
    },
    async targets(connection, r) {
      await settled();
      const rows = await sql.unsafe(
        `SELECT c.id AS conversation, coalesce(nullif(c.name, ''), c.conversation_id) AS name,
          t.latest FROM conversations c
          CROSS JOIN LATERAL (SELECT m.ts AS latest FROM messages m
            WHERE m.conversation = c.id AND m.ts > $2 AND m.ts < $3 AND m.type < $4
              AND m.type != ${TYPE_CODE.gap}
            ORDER BY m.ts DESC LIMIT 1) t
          WHERE c.connection = $1 AND c.conversation_id != ''
          ORDER BY t.latest ${r.newest ? "DESC" : "ASC"} LIMIT $5`,
        [connection, r.after, r.before, typeBound(r.events), r.limit],
        { prepare: true },
      );
      const out = rows as unknown as HistoryTarget[];
      return r.newest ? out.reverse() : out;
    },
    async markRead(conversation, ts, own = "") {
      await settled();
      /** The count the marker set, told to the writer once committed. */
      let set: UnreadEntry | undefined;
      const marker = await sql.begin(async (tx) => {
        const [row] = await tx`SELECT last_read, unread FROM conversations
          WHERE id = ${conversation} FOR UPDATE`;
        if (!row) return undefined;
        if (ts <= row.last_read) return { lastRead: row.last_read, unread: row.unread };
        // Unread is what came after the marker but the user's own lines (those from its nick now),
        // counted no further than the count already kept: a marker never adds unread messages.
        const [{ n }] = await tx`SELECT count(*)::int AS n FROM (SELECT 1 FROM messages
          WHERE conversation = ${conversation} AND ts > ${ts} AND type < ${FIRST_EVENT_CODE}
            AND lower(sender) != ${pgString(own.toLowerCase())}
          LIMIT ${row.unread}) x`;
        await tx`UPDATE conversations SET last_read = ${ts}, unread = ${n} WHERE id = ${conversation}`;
        set = [conversation, n];
        await notifyUnread(tx as unknown as Sql, unread.origin, [set]);
        return { lastRead: ts, unread: n as number };
      });
      if (set) unread.set([set]);
      return marker;
    },
    async serverMsgid(connection, conversation, ms) {
      await settled();
      const [row] = await sql`SELECT m.server_msgid FROM messages m
        JOIN conversations c ON c.id = m.conversation
        WHERE m.conversation = ${conversation} AND c.connection = ${connection}
          AND m.ts >= ${ms * 1000} AND m.ts < ${ms * 1000 + 1000}
          AND m.server_msgid IS NOT NULL LIMIT 1`;
      return row?.server_msgid as string | undefined;
    },
    async byServerMsgid(conversation, ids) {
      const out = new Map<string, number>();
      if (!ids.length) return out;
      await settled();
      const rows = await sql`SELECT server_msgid, min(ts) AS ts FROM messages
        WHERE conversation = ${conversation} AND server_msgid = ANY(${
        [...new Set(ids)].map(pgString)
      }::text[])
          AND type < ${FIRST_EVENT_CODE}
        GROUP BY server_msgid`;
      for (const r of rows) out.set(r.server_msgid as string, Number(r.ts));
      return out;
    },
    async position(connection, client) {
      const [row] = await sql`SELECT ts FROM client_positions
        WHERE connection = ${connection} AND client = ${pgString(client)}`;
      return row?.ts as number | undefined;
    },
    async setPosition(connection, client, ts) {
      await sql`INSERT INTO client_positions (connection, client, ts)
        VALUES (${connection}, ${pgString(client)}, ${ts})
        ON CONFLICT (connection, client) DO UPDATE
          SET ts = greatest(client_positions.ts, excluded.ts)`;
    },
  };
}
