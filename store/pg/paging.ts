/**
 * Pages of one conversation by time, as store/sqlite/messages/paging.ts (history) and
 * store/sqlite/messages/conversation_match.ts (`match` within a conversation) cut them for SQLite.
 */
import type { HistoryQuery } from "../message_types.ts";
import type { MessagePage } from "../../protocol/messages.ts";
import { aroundPage, oneWayPage, pageOf, type Row } from "../rows.ts";
import type { Sql } from "./db.ts";

const MIN = Number.MIN_SAFE_INTEGER;
const MAX = Number.MAX_SAFE_INTEGER;

/** The columns of a Row, from `messages m`. */
export const PG_COLUMNS =
  "m.id, m.conversation, m.ts, m.type, m.highlight::int AS highlight, m.sender, m.text, " +
  "m.server_msgid, m.reply_to, m.fields";

/** The pagers over `messages` (index on conversation and ts). */
export function pgPages(sql: Sql) {
  /**
   * Rows of the conversation strictly between `lower` and `upper`, nearest `upper` first
   * (`newest`) or nearest `lower` first; `tsquery` keeps only the matching ones.
   */
  function between(
    conversation: number,
    lower: number,
    upper: number,
    newest: boolean,
    limit: number,
    tsquery?: string,
  ): Promise<Row[]> {
    const match = tsquery === undefined ? "" : "AND m.words @@ $5::tsquery";
    const args: (string | number)[] = [conversation, lower, upper, limit];
    if (tsquery !== undefined) args.push(tsquery);
    return sql.unsafe(
      `SELECT ${PG_COLUMNS} FROM messages m
        WHERE m.conversation = $1 AND m.ts > $2 AND m.ts < $3 ${match}
        ORDER BY m.ts ${newest ? "DESC" : "ASC"} LIMIT $4`,
      args,
      { prepare: true },
    ) as unknown as Promise<Row[]>;
  }

  async function any(conversation: number, op: "<" | ">", ts: number): Promise<boolean> {
    const rows = await sql.unsafe(
      `SELECT 1 AS x FROM messages WHERE conversation = $1 AND ts ${op} $2 LIMIT 1`,
      [conversation, ts],
      { prepare: true },
    );
    return rows.length > 0;
  }

  return {
    /** The page `q` names: around a time, after one (oldest first), or before one (newest). */
    async history(conversation: number, q: HistoryQuery): Promise<MessagePage> {
      const limit = q.limit;
      let rows: Row[];
      let hasOlder: boolean;
      let hasNewer: boolean;
      if (q.around !== undefined) {
        const before = await between(conversation, MIN, q.around, true, limit + 1);
        const after = await between(conversation, q.around - 1, MAX, false, limit + 1);
        return aroundPage(before, after, limit);
      } else if (q.after !== undefined) {
        const got = await between(conversation, q.after, q.before ?? MAX, false, limit + 1);
        hasNewer = got.length > limit;
        rows = got.slice(0, limit);
        hasOlder = rows.length > 0 && await any(conversation, "<", rows[0].ts);
      } else {
        const got = await between(conversation, MIN, q.before ?? MAX, true, limit + 1);
        hasOlder = got.length > limit;
        rows = got.slice(0, limit).reverse();
        hasNewer = rows.length > 0 && await any(conversation, ">", rows[rows.length - 1].ts);
      }
      return pageOf(rows, hasOlder, hasNewer);
    },

    /** The conversation's messages matching `tsquery`, paged by time like history. */
    async matching(conversation: number, tsquery: string, q: HistoryQuery): Promise<MessagePage> {
      const limit = q.limit;
      const lower = q.after ?? MIN;
      const upper = q.before ?? MAX;
      if (q.around !== undefined) {
        const before = await between(conversation, lower, q.around, true, limit + 1, tsquery);
        const after = await between(conversation, q.around - 1, upper, false, limit + 1, tsquery);
        return aroundPage(before, after, limit);
      }
      const forward = q.after !== undefined;
      const got = await between(conversation, lower, upper, !forward, limit + 1, tsquery);
      return oneWayPage(got, limit, forward);
    },
  };
}
