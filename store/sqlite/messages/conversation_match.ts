/** `match` within one conversation: matching messages, paged by time like history. */
import type { DatabaseSync } from "node:sqlite";
import type { HistoryQuery } from "../../message_types.ts";
import type { MessagePage } from "../../../protocol/messages.ts";
import { aroundPage, COLUMNS, oneWayPage, type Row } from "../../rows.ts";
import { statementCache } from "./statements.ts";
import { type FtsIndex, scoped } from "./fts.ts";

/** Pages of a conversation's messages matching an FTS5 text query. */
export function conversationMatches(db: DatabaseSync, index: FtsIndex) {
  const ownerOf = db.prepare(
    "SELECT k.user_id FROM conversations c JOIN connections k ON k.id = c.connection WHERE c.id = ?",
  );
  const prepared = statementCache();

  /** Matching rows (the newest `limit` unless a cursor says otherwise) as a history page. */
  return function matchPage(conversation: number, words: string, q: HistoryQuery): MessagePage {
    const owner = ownerOf.get(conversation) as { user_id: number } | undefined;
    const table = owner && index.indexOf(owner.user_id);
    if (!table) return { messages: [] };
    const limit = q.limit;
    const lower = q.after ?? Number.MIN_SAFE_INTEGER;
    const upper = q.before ?? Number.MAX_SAFE_INTEGER;
    const forward = q.after !== undefined && q.around === undefined;
    const sql = `SELECT ${COLUMNS} FROM messages m
      WHERE m.conversation = ? AND m.ts > ? AND m.ts < ?
        AND m.id IN (SELECT value FROM json_each(?))
      ORDER BY m.ts ${forward ? "ASC" : "DESC"} LIMIT ?`;
    // Every match in the conversation; the page is cut by time on the messages side, so
    // cursors stay exact whatever the arrival order was.
    const ids = index.allMatching(table, scoped(words, `"c${conversation}"`));
    if (q.around !== undefined) {
      const before = prepared(sql, db)
        .all(conversation, lower, q.around, ids, limit + 1) as unknown as Row[];
      const afterSql = sql.replace("ORDER BY m.ts DESC", "ORDER BY m.ts ASC");
      const after = prepared(afterSql, db)
        .all(conversation, q.around - 1, upper, ids, limit + 1) as unknown as Row[];
      return aroundPage(before, after, limit);
    }
    const got = prepared(sql, db)
      .all(conversation, lower, upper, ids, limit + 1) as unknown as Row[];
    return oneWayPage(got, limit, forward);
  };
}
