/** Search over all of a user's conversations: the same rules as store/messages/search.ts. */
import { ircLower } from "../../lib/casefold.ts";
import { parseMatch } from "../match.ts";
import { FIRST_EVENT_CODE, type MessagePage, type SearchQuery } from "../message_types.ts";
import { JOIN_WHERE, newestFirstPage, type Row } from "../messages/rows.ts";
import { pgString, type Sql } from "./db.ts";
import { log } from "../../lib/log.ts";
import { PG_COLUMNS } from "./paging.ts";
import { conversationLexeme, toTsquery, userLexeme } from "./tsquery.ts";

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
    // Channel events (joins, parts...) are history, never search results. With words, the user
    // and conversations are lexemes of the tsquery (below) and not also columns compared here:
    // the planner would count the same narrowing twice, expect a handful of rows for "the", and
    // fetch and sort thousands.
    const byLexeme = parsed.terms.length > 0;
    const where = [`m.type < ${FIRST_EVENT_CODE}`];
    if (!byLexeme) where.push(`m.user_id = ${arg(userId)}`);
    if (q.connectionId !== undefined) where.push(`k.connection_id = ${arg(q.connectionId)}`);
    /** The conversations' row ids, for their lexemes (below). */
    let scope: number[] | undefined;
    if (conversations.length) {
      if (!byLexeme) where.push(`c.conversation_id IN (${conversations.map(arg).join(", ")})`);
      scope = (await sql`SELECT v.id FROM conversations v JOIN connections k ON k.id = v.connection
        WHERE k.user_id = ${userId} AND v.conversation_id IN ${sql(conversations.map(pgString))}`)
        .map((r) => Number(r.id));
      if (!scope.length) return { messages: [], end: true };
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
      // The words and where they were said, both found in the GIN index (store/pg/tsquery.ts).
      const within = scope ? `(${scope.map(conversationLexeme).join(" | ")})` : userLexeme(userId);
      where.push(
        `m.words @@ ${arg(`(${toTsquery(parsed.terms, narrowed)}) & ${within}`)}::tsquery`,
      );
    }
    const rows = await sql.unsafe(
      `SELECT ${PG_COLUMNS}, k.connection_id, c.conversation_id, m.user_id AS owner,
          m.conversation AS conversation_row FROM messages m ${JOIN_WHERE}
        WHERE ${where.join(" AND ")} ORDER BY m.id DESC LIMIT ${arg(q.limit + 1)}`,
      args,
      // Planned for these words every time: a plan cached for one word (a walk of the newest
      // rows for "the", the GIN index for a rare one) is the wrong plan for the other.
      { prepare: false },
    ) as unknown as (Row & { owner: number; conversation_row: number })[];
    // The lexemes are written with the rows; should one ever be wrong, another user's message
    // still never leaves here.
    const theirs = rows.filter((r) =>
      r.owner === userId && (!scope || scope.includes(r.conversation_row))
    );
    if (theirs.length < rows.length) {
      log.error("search: rows outside the user's scope", { uid: userId });
    }
    return newestFirstPage(theirs, q.limit);
  };
}
