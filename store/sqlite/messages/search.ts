/** Search over all of a user's conversations: FTS5 for the words, SQL for everything else. */
import type { DatabaseSync } from "node:sqlite";
import { ircLower } from "../../../lib/casefold.ts";
import { fold, hasWordPrefixes, parseMatch } from "../../match.ts";
import { FIRST_EVENT_CODE, type MessagePage } from "../../../protocol/messages.ts";
import { type SearchQuery } from "../../message_types.ts";
import { JOIN_WHERE, type Row, WHERE_COLUMNS } from "../../rows.ts";
import { statementCache } from "./statements.ts";
import { type FtsIndex, scoped } from "./fts.ts";
import { byTime, pageFloor, timePage } from "../../search_order.ts";

/** Most index rows a search reads at once while looking for rows that pass its filters. */
const MAX_CHUNK = 5000;
/** Most conversations a `#name` or connection restriction turns into scope tokens. */
const MAX_SCOPE = 500;

/** The user search over `db` and its index. */
export function userSearch(db: DatabaseSync, index: FtsIndex) {
  db.function(
    "parley_word_prefixes",
    { deterministic: true },
    (text, prefixes) => hasWordPrefixes(String(text), String(prefixes).split(" ")) ? 1 : 0,
  );
  const prepared = statementCache();
  // Whether any of the user's messages stored before id `below` has a time in [floor, before):
  // each conversation's (conversation, ts) index, which holds the ids too, read over the window.
  const storedEarlierInWindow = db.prepare(`SELECT 1 AS x FROM messages m
    WHERE m.conversation IN (SELECT c.id FROM conversations c JOIN connections k
      ON k.id = c.connection WHERE k.user_id = ?)
    AND m.ts >= ? AND m.ts < ? AND m.id < ? LIMIT 1`);

  /**
   * Walks candidates newest stored first (`chunk` reads those stored before an id), until they
   * surely hold the page by time: a message stored earlier may be newer (a replayed line, an
   * import), so the walk goes on while any stored earlier lies in the page's time window.
   */
  function newestByTime(
    userId: number,
    q: SearchQuery,
    chunk: (below: number, n: number) => { rows: Row[]; last?: number; exhausted: boolean },
  ): MessagePage {
    let got: Row[] = [];
    for (let below = Number.MAX_SAFE_INTEGER, n = q.limit + 1;;) {
      const read = chunk(below, n);
      got.push(...read.rows);
      if (read.exhausted || read.last === undefined) return timePage(byTime(got), q.limit, true);
      below = read.last;
      n = Math.min(n * 4, MAX_CHUNK);
      const floor = pageFloor(got, q.limit);
      if (floor === undefined) continue;
      // Rows older than the floor can never be on the page: only the window's are kept.
      got = got.filter((r) => r.ts >= floor);
      const before = q.before ?? Number.MAX_SAFE_INTEGER;
      if (!storedEarlierInWindow.get(userId, floor, before, below)) break;
    }
    return timePage(byTime(got), q.limit, false);
  }

  /** Row ids of the user's conversations named `names` (all, when none), on one connection if given. */
  function scopeIds(userId: number, names: string[], connectionId?: string): number[] {
    const where = ["k.user_id = ?"];
    const args: (string | number)[] = [userId];
    if (connectionId !== undefined) where.push("k.connection_id = ?"), args.push(connectionId);
    if (names.length) {
      where.push(`c.conversation_id IN (${names.map(() => "?").join(", ")})`);
      args.push(...names);
    }
    const sql = `SELECT c.id FROM conversations c JOIN connections k ON k.id = c.connection
      WHERE ${where.join(" AND ")} LIMIT ${MAX_SCOPE}`;
    return (prepared(sql, db).all(...args) as { id: number }[]).map((r) => r.id);
  }

  return function search(userId: number, q: SearchQuery): MessagePage {
    const parsed = parseMatch(q.match ?? "");
    const senders = [...parsed.senders, ...(q.from ? [q.from] : [])];
    const conversations = parsed.conversations.map((n) => ircLower(n));
    if (q.conversationId !== undefined) conversations.push(q.conversationId);
    const hasCriteria = parsed.fts !== undefined || senders.length > 0 ||
      conversations.length > 0 ||
      q.connectionId !== undefined;
    if (!hasCriteria || parsed.empty) return { messages: [], end: true };
    // Channel events (joins, parts...) are history, never search results.
    const where = ["m.user_id = ?", `m.type < ${FIRST_EVENT_CODE}`];
    const args: (string | number)[] = [userId];
    if (q.connectionId !== undefined) where.push("k.connection_id = ?"), args.push(q.connectionId);
    if (conversations.length) {
      where.push(`c.conversation_id IN (${conversations.map(() => "?").join(", ")})`);
      args.push(...conversations);
    }
    for (const s of senders) where.push("m.sender = ? COLLATE NOCASE"), args.push(s);
    if (q.before !== undefined) where.push("m.ts < ?"), args.push(q.before);
    if (q.after !== undefined) where.push("m.ts > ?"), args.push(q.after);
    // As Convos: `6` finds "62 toys" when a sender or a conversation narrows the rows. Such a
    // word leaves the index (where a one- or two-letter prefix would read most of it) and
    // filters the narrowed rows instead.
    let terms = parsed.terms;
    if (senders.length || conversations.length) {
      const short = terms.filter((t) => t.bare && !t.prefix).map((t) => fold(t.words[0]));
      if (short.length) {
        terms = terms.filter((t) => !(t.bare && !t.prefix));
        where.push("parley_word_prefixes(m.text, ?)");
        args.push(short.join(" "));
      }
    }
    if (!terms.length) {
      const sql = `SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
        WHERE ${where.join(" AND ")} AND m.id < ? ORDER BY m.id DESC LIMIT ?`;
      return newestByTime(userId, q, (below, n) => {
        const rows = prepared(sql, db).all(...args, below, n) as unknown as Row[];
        return { rows, last: rows[rows.length - 1]?.id, exhausted: rows.length < n };
      });
    }
    // Each user has an index of their own. Conversation restrictions are tokens of the index
    // too, so FTS5 intersects them with the words.
    const table = index.indexOf(userId);
    if (!table) return { messages: [], end: true };
    let scope: string | undefined;
    if (conversations.length || q.connectionId !== undefined) {
      const ids = scopeIds(userId, conversations, q.connectionId);
      if (!ids.length) return { messages: [], end: true };
      scope = `(${ids.map((id) => `"c${id}"`).join(" OR ")})`;
    }
    const { text, prefixes } = index.planTerms(table, terms, scope);
    if (prefixes.length) {
      where.push("parley_word_prefixes(m.text, ?)");
      args.push(prefixes.join(" "));
    }
    // A phrase intersected with a scope token is slow in FTS5 (positions are checked for
    // every scoped row); phrases narrow well alone, and the SQL filters above keep the scope.
    const phrase = terms.some((t) => t.words.length > 1);
    const fts = scoped(text, phrase ? undefined : scope);
    const rowsOf = prepared(
      `SELECT ${WHERE_COLUMNS} FROM messages m ${JOIN_WHERE}
        WHERE m.id IN (SELECT value FROM json_each(?)) AND ${where.join(" AND ")}
        ORDER BY m.id DESC`,
      db,
    );
    // Walk the index newest stored first in growing chunks; the messages side applies what the
    // index does not know (sender, time, full prefixes).
    return newestByTime(userId, q, (below, n) => {
      const ids = index.matchingIds(table, fts, below, n);
      const rows = ids.length ? rowsOf.all(JSON.stringify(ids), ...args) as unknown as Row[] : [];
      return { rows, last: ids[ids.length - 1], exhausted: ids.length < n };
    });
  };
}
