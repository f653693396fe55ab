/** Search over all of a user's conversations: the same rules as store/messages/search.ts. */
import { ircLower } from "../../lib/casefold.ts";
import { parseMatch } from "../match.ts";
import { FIRST_EVENT_CODE, type MessagePage, type SearchQuery } from "../message_types.ts";
import { JOIN_WHERE, newestFirstPage, type Row } from "../messages/rows.ts";
import { pgString, type Sql } from "./db.ts";
import { log } from "../../lib/log.ts";
import { PG_COLUMNS } from "./paging.ts";
import { conversationLexeme, toTsquery, userLexeme } from "./tsquery.ts";

/** Rows of the user's newest that are sampled for how common the words are. */
const SAMPLE = 2000;
/** Fewest matches in the sample that say enough about a word's rate to walk for it. */
const WALK_AT = 4;
/** Most of the user's rows a walk reads. */
const MAX_WALK = 50_000;
/** Messages per heap page, about (a chat line's row is ~250 bytes). */
const ROWS_PER_PAGE = 30;

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
    const select = (from: string, order: string, extra = "") =>
      sql.unsafe(
        `SELECT ${PG_COLUMNS}, k.connection_id, c.conversation_id, m.user_id AS owner,
            m.conversation AS conversation_row${extra} FROM ${from} ${JOIN_WHERE}
          WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ${q.limit + 1}`,
        args,
        // Planned for these words every time: a plan cached for one word (a walk of the newest
        // rows for "the", the GIN index for a rare one) is the wrong plan for the other.
        { prepare: false },
      ) as unknown as Promise<(Row & { owner: number; conversation_row: number })[]>;
    let rows: (Row & { owner: number; conversation_row: number })[];
    if (!byLexeme || q.before !== undefined || q.after !== undefined) {
      rows = await select("messages m", "m.id DESC");
    } else {
      // Words, newest first. GIN cannot give rows in id order, so a word with thousands of
      // matches costs a fetch of every one; a walk of the user's newest rows finds a common
      // word's page at once. PostgreSQL's planner guesses which is cheaper from word
      // frequencies over all users and walked 170,000 rows for a middling word of a small user
      // (1-2 s at 10 M messages). So the choice is made here, from a sample: the user's newest
      // SAMPLE rows. From a word's rate in them, a walk of as many rows as the page needs is
      // weighed against the GIN index, whose cost is one row per match in all of the user's
      // history (few for a rare word).
      // The sample also says how spread out the user's rows are (a user with a tenth of the
      // rows has one on most pages): its first row's id, from the same walk.
      const walk = (n: number) =>
        select(
          `(SELECT *, min(id) OVER () AS sample_from FROM (SELECT * FROM messages
            WHERE user_id = ${Math.trunc(userId)} ORDER BY id DESC LIMIT ${n}) s) m`,
          "m.id DESC",
          ", m.sample_from",
        ) as Promise<(Row & { owner: number; conversation_row: number; sample_from: number })[]>;
      const sample = await walk(SAMPLE);
      rows = sample;
      const wanted = q.limit + 1;
      const seen = sample.length;
      if (seen > 0 && seen < wanted && seen >= WALK_AT) {
        const newest = sample[0].id;
        const span = Math.max(1, newest - sample[0].sample_from);
        // In µs, measured at 10 M messages with the pages in memory: a walk costs ~1 per row,
        // plus ~5 per row that is alone on its heap page (a user with few of the rows); the
        // index ~1.5 per match, plus crossing the user's entries in the index (~0.01 each).
        const spread = Math.min(1, span / (SAMPLE * ROWS_PER_PAGE));
        const walkRows = Math.ceil(SAMPLE * wanted / seen * 1.3);
        const userRows = newest * SAMPLE / span;
        const walkCost = walkRows * (1 + 5 * spread);
        const indexCost = (seen / SAMPLE) * userRows * 1.5 + userRows * 0.01;
        if (walkRows <= MAX_WALK && walkCost < indexCost) rows = await walk(walkRows);
      }
      if (rows.length < wanted) {
        // A rare word, or a walk that fell short (or the user has fewer rows than it read).
        // `+ 0`: not the primary key's order, so the planner cannot choose its walk again.
        rows = await select("messages m", "m.id + 0 DESC");
      }
    }
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
