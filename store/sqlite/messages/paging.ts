/** Pages of one conversation's history by time, with cursors to the pages on either side. */
import type { DatabaseSync } from "node:sqlite";
import type { HistoryQuery } from "../../message_types.ts";
import type { MessagePage } from "../../../protocol/messages.ts";
import { aroundPage, COLUMNS, pageOf, type Row } from "../../rows.ts";

const MIN = Number.MIN_SAFE_INTEGER;
const MAX = Number.MAX_SAFE_INTEGER;

/** The history pager over `messages` (index on conversation and ts). */
export function historyPages(db: DatabaseSync) {
  const older = db.prepare(
    `SELECT ${COLUMNS} FROM messages m WHERE m.conversation = ? AND m.ts < ? AND m.ts > ? ORDER BY m.ts DESC LIMIT ?`,
  );
  const newer = db.prepare(
    `SELECT ${COLUMNS} FROM messages m WHERE m.conversation = ? AND m.ts > ? AND m.ts < ? ORDER BY m.ts ASC LIMIT ?`,
  );
  const anyOlder = db.prepare(
    "SELECT 1 AS x FROM messages WHERE conversation = ? AND ts < ? LIMIT 1",
  );
  const anyNewer = db.prepare(
    "SELECT 1 AS x FROM messages WHERE conversation = ? AND ts > ? LIMIT 1",
  );

  /** The page `q` names: around a time, after one (oldest first), or before one (newest). */
  return function page(conversation: number, q: HistoryQuery): MessagePage {
    const limit = q.limit;
    let rows: Row[];
    let hasOlder: boolean;
    let hasNewer: boolean;
    if (q.around !== undefined) {
      const before = older.all(conversation, q.around, MIN, limit + 1) as unknown as Row[];
      const after = newer.all(conversation, q.around - 1, MAX, limit + 1) as unknown as Row[];
      return aroundPage(before, after, limit);
    } else if (q.after !== undefined) {
      const got = newer.all(conversation, q.after, q.before ?? MAX, limit + 1) as unknown as Row[];
      hasNewer = got.length > limit;
      rows = got.slice(0, limit);
      hasOlder = rows.length > 0 && Boolean(anyOlder.get(conversation, rows[0].ts));
    } else {
      const got = older.all(conversation, q.before ?? MAX, MIN, limit + 1) as unknown as Row[];
      hasOlder = got.length > limit;
      rows = got.slice(0, limit).reverse();
      hasNewer = rows.length > 0 && Boolean(anyNewer.get(conversation, rows[rows.length - 1].ts));
    }
    return pageOf(rows, hasOlder, hasNewer);
  };
}
