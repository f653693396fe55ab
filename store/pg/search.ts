/** Search over all of a user's conversations: the same rules as store/messages/search.ts. */
import { ircLower } from "../../lib/casefold.ts";
import { parseMatch } from "../match.ts";
import { FIRST_EVENT_CODE, type MessagePage, type SearchQuery } from "../message_types.ts";
import { JOIN_WHERE, newestFirstPage, type Row } from "../messages/rows.ts";
import { pgString, type Sql } from "./db.ts";
import { PG_COLUMNS } from "./paging.ts";
import { toTsquery } from "./tsquery.ts";

/** The user search over `messages` (GIN index on the words). */
export function pgUserSearch(sql: Sql) {
  return async function search(userId: number, q: SearchQuery): Promise<MessagePage> {
    const parsed = parseMatch(q.match ?? "");
    const senders = [...parsed.senders, ...(q.from ? [q.from] : [])];
    const conversations = parsed.conversations.map((n) => ircLower(n));
    if (q.conversationId !== undefined) conversations.push(q.conversationId);
    const hasCriteria = parsed.fts !== undefined || senders.length > 0 ||
      conversations.length > 0 || q.connectionId !== undefined;
    if (!hasCriteria || parsed.empty) return { messages: [], end: true };
    const args: (string | number)[] = [];
    const arg = (v: string | number) => `$${args.push(typeof v === "string" ? pgString(v) : v)}`;
    // Channel events (joins, parts...) are history, never search results.
    const where = [`m.user_id = ${arg(userId)}`, `m.type < ${FIRST_EVENT_CODE}`];
    if (q.connectionId !== undefined) where.push(`k.connection_id = ${arg(q.connectionId)}`);
    if (conversations.length) {
      where.push(`c.conversation_id IN (${conversations.map(arg).join(", ")})`);
    }
    // SQLite's NOCASE: ASCII letters only.
    for (const s of senders) {
      where.push(`lower(m.sender COLLATE "C") = lower(${arg(s)} COLLATE "C")`);
    }
    if (q.before !== undefined) where.push(`m.ts < ${arg(q.before)}`);
    if (q.after !== undefined) where.push(`m.ts > ${arg(q.after)}`);
    if (parsed.terms.length) {
      // As Convos: `6` finds "62 toys" when a sender or a conversation narrows the rows.
      const narrowed = senders.length > 0 || conversations.length > 0;
      where.push(`m.words @@ ${arg(toTsquery(parsed.terms, narrowed))}::tsquery`);
    }
    const rows = await sql.unsafe(
      `SELECT ${PG_COLUMNS}, k.connection_id, c.conversation_id FROM messages m ${JOIN_WHERE}
        WHERE ${where.join(" AND ")} ORDER BY m.id DESC LIMIT ${arg(q.limit + 1)}`,
      args,
      { prepare: true },
    ) as unknown as Row[];
    return newestFirstPage(rows, q.limit);
  };
}
