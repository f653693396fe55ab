/** Search over all of a user's conversations: the same rules as store/sqlite/messages/search.ts. */
import { ircLower } from "../../lib/casefold.ts";
import { parseMatch } from "../match.ts";
import { FIRST_EVENT_CODE, type MessagePage } from "../../protocol/messages.ts";
import { type SearchQuery } from "../message_types.ts";
import { JOIN_WHERE, type Row } from "../rows.ts";
import { byTime, pageFloor, timePage } from "../search_order.ts";
import { pgString, type Sql } from "./db.ts";
import { log } from "../../lib/log.ts";
import { PG_COLUMNS } from "./paging.ts";
import {
  BUCKET_IDS,
  bucketLexeme,
  bucketOf,
  conversationLexeme,
  keyOf,
  prefixesOf,
  toTsquery,
  userLexeme,
} from "./tsquery.ts";
import type { Vocabulary } from "./vocabulary.ts";

type Found = Row & { owner: number; conversation_row: number };

/** The user's newest rows a search reads first: a common word's page is among them. */
const SAMPLE = 500;
/**
 * Most buckets of ids one query names (GIN reads each in full); a page that needs more asks for
 * all the rest of the history at once.
 */
const MAX_BUCKETS = 32;
/** Rows of the scope a walk past the sample is expected to read that are cheap anyway. */
const WALK_AT_MOST = 2_000;
/** Most rows of the scope a walk past the sample is expected to read. */
const MAX_WALK = 20_000;

/** The user search over `messages` (GIN index on the words). */
export function pgUserSearch(sql: Sql, vocabulary: Vocabulary) {
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
    // fetch and sort thousands. Every condition is then on `m` alone, for the walks below.
    const byLexeme = parsed.terms.length > 0;
    const where = [`m.type < ${FIRST_EVENT_CODE}`];
    if (!byLexeme) where.push(`m.user_id = ${arg(userId)}`);
    /** The row ids of the conversations searched, for their lexemes (below). */
    let scope: number[] | undefined;
    if (conversations.length || q.connectionId !== undefined) {
      const connection = q.connectionId === undefined
        ? sql``
        : sql`AND k.connection_id = ${pgString(q.connectionId)}`;
      const named = conversations.length
        ? sql`AND v.conversation_id IN ${sql(conversations.map(pgString))}`
        : sql``;
      scope = (await sql`SELECT v.id FROM conversations v JOIN connections k ON k.id = v.connection
        WHERE k.user_id = ${userId} ${connection} ${named}`).map((r) => Number(r.id));
      if (!scope.length) return { messages: [], end: true };
    }
    /** The scope as a column condition (row ids from the database: numbers). */
    const inScope = scope ? [`m.conversation IN (${scope.join(", ")})`] : [];
    if (!byLexeme) where.push(...inScope);
    // SQLite's NOCASE: ASCII letters only.
    for (const s of senders) {
      where.push(`lower(m.sender COLLATE "C") = lower(${arg(s)} COLLATE "C")`);
    }
    if (q.before !== undefined) where.push(`m.ts < ${arg(q.before)}`);
    if (q.after !== undefined) where.push(`m.ts > ${arg(q.after)}`);
    // As Convos: `6` finds "62 toys" when a sender or a conversation narrows the rows.
    const narrowed = senders.length > 0 || conversations.length > 0;
    const prefixes = prefixesOf(parsed.terms, narrowed);
    const expanded = await vocabulary.expand(prefixes);
    // The words and where they were said, all found in the GIN index (store/pg/tsquery.ts).
    const words = `(${toTsquery(parsed.terms, narrowed, expanded)})`;
    const within = scope ? `(${scope.map(conversationLexeme).join(" | ")})` : userLexeme(userId);
    const wanted = q.limit + 1;
    // Each query's last two parameters: the whole tsquery, checked on the rows, and the part
    // GIN is asked for (store/pg/tsquery.ts, keyOf).
    const whole = `$${args.length + 1}::tsquery`;
    /** The rows that match, found in the GIN index by the key and where they were said. */
    const matches = `m.words @@ $${args.length + 2}::tsquery AND ts_match_vq(m.words, ${whole})`;
    const shares = await vocabulary.frequencies();
    const { key, share, words: keyWords } = keyOf(parsed.terms, shares.of, narrowed, expanded);
    /** Rows of `from` (aliased m) that meet `where` and `also`, `order`ed. */
    const select = (
      from: string,
      order: string,
      also: string[],
      indexed = `${key} & ${within}`,
      limit = wanted,
    ) => {
      const text = `SELECT ${PG_COLUMNS}, k.connection_id, c.conversation_id,
          m.user_id AS owner, m.conversation AS conversation_row FROM ${from} ${JOIN_WHERE}
        WHERE ${[...where, ...also].join(" AND ")} ORDER BY ${order} LIMIT ${limit}`;
      // PostgreSQL refuses a parameter the text does not use (it cannot tell its type).
      const values = [...args];
      if (text.includes(whole)) values.push(pgString(`${words} & ${within}`));
      if (text.includes(matches)) values.push(pgString(indexed));
      // Planned for these words every time: a plan cached for one word is the wrong plan for
      // the next.
      return sql.unsafe(text, values, { prepare: false }) as unknown as Promise<Found[]>;
    };
    let rows: Found[];
    /** Whether the rows came from the GIN index (the words are rare enough for it). */
    let viaIndex = false;
    if (!byLexeme) {
      rows = await select("messages m", "m.id DESC", []);
    } else if (q.before !== undefined || q.after !== undefined) {
      // A later page: the index, as the first page's last resort below.
      rows = await select("messages m", "m.id + 0 DESC", [matches]);
      viaIndex = true;
    } else {
      // Words, newest first. GIN cannot give rows in id order, so a word with thousands of
      // matches in the user's history would cost a fetch of every one. First the scope's newest
      // SAMPLE rows are read in order: a common word's page is there. Their rate says whether
      // reading on is cheaper than the index (a prefix that starts common words, above all:
      // GIN gathers all their rows, all users', before anything narrows them).
      rows = await walk(SAMPLE);
      if (rows.length < wanted) {
        const rate = rows.length / SAMPLE;
        const rowsNeeded = rate > 0 ? wanted / rate * 1.5 : Infinity;
        // In µs at 10 M messages, pages in memory: a walked row up to ~6 (a user's rows are
        // ~1 a page, unless they are most of the traffic); GIN reads the words of an
        // OR (a prefix's) in full, ~0.5 a row, where it skips through a single word's. One
        // conversation's walk (or the user's) stops at the page; several are read to the end.
        const sources = scope && scope.length <= 4 ? scope.length : 1;
        const walked = sources > 1 ? sources * rowsNeeded * 2 : rowsNeeded / 1.5;
        const indexCost = keyWords > 1 ? share * shares.total * 0.5 : 0;
        if (walked <= WALK_AT_MOST || (walked * 6 < indexCost && walked <= MAX_WALK)) {
          rows = await walk(Math.ceil(rowsNeeded * 2));
        }
        if (rows.length < wanted) rows = await byBuckets(), viaIndex = true;
      }
    }

    // The rows so far are the newest stored; a message stored earlier may be newer (a replayed
    // line, an import). Fewer than a page are all there is. Else the page by time lies at or
    // after their page's oldest time: read that window in time order, by the index that found
    // them, or each conversation's (conversation, ts) index.
    const complete = rows.length < wanted;
    if (!complete) {
      const floor = pageFloor(rows, q.limit)!;
      const window = async (at: string, limit = wanted) => {
        if (!byLexeme) return await select("messages m", "m.ts DESC, m.id DESC", [at], "", limit);
        if (viaIndex) {
          return await select(
            "messages m",
            "m.ts DESC, m.id DESC",
            [matches, at],
            undefined,
            limit,
          );
        }
        const own = scope ?? (await sql`SELECT v.id FROM conversations v
          JOIN connections k ON k.id = v.connection WHERE k.user_id = ${userId}`)
          .map((r) => Number(r.id));
        if (!own.length) return [];
        return await select(
          "messages m",
          "m.ts DESC, m.id DESC",
          [
            `m.conversation IN (${own.join(", ")})`,
            at,
            `m.words @@ ${whole}`,
          ],
          undefined,
          limit,
        );
      };
      rows = await window(`m.ts >= ${Math.trunc(floor)}`);
      // More than a page at one instant: the page holds all of that instant (timePage).
      const last = rows[rows.length - 1];
      if (rows.length === wanted && rows[0].ts === last.ts) {
        rows = await window(`m.ts = ${Math.trunc(last.ts)}`, 10_000);
      }
    }

    /** The scope's newest rows in order, at most `n` of them read, that match. */
    function walk(n: number): Promise<Found[]> {
      // A few conversations: each one's own index (by ts, the order its ids were given in); the
      // newest n of their newest n each are the scope's newest n. Else the user's rows.
      const source = scope && scope.length <= 4
        ? `(SELECT * FROM (${
          scope.map((c) =>
            `(SELECT * FROM messages WHERE conversation = ${c} ORDER BY ts DESC LIMIT ${n})`
          ).join(" UNION ALL ")
        }) u ORDER BY ts DESC LIMIT ${n})`
        : `(SELECT * FROM messages WHERE user_id = ${
          Math.trunc(userId)
        } ORDER BY id DESC LIMIT ${n})`;
      // Without ORDER BY the filter passes rows on in the walk's order, and the walk stops at
      // the page's last row: only the outer query sorts, its page.
      return select(
        `(SELECT m.* FROM ${source} m
          WHERE ${[...where, `m.words @@ ${whole}`].join(" AND ")} LIMIT ${wanted}) m`,
        "m.id DESC",
        [],
      );
    }

    /**
     * The newest matches, from the user's newest buckets of ids (store/pg/tsquery.ts). The
     * newest bucket first: the matches so far say how many buckets the page needs, asked for
     * next, up to MAX_BUCKETS in all. Past them the word is rare for this user and the rest of
     * the history is asked for at once. A bucket's lexeme is the user's, so the user's (or a
     * conversation's) lexeme is left out: GIN reads the entries of an OR in full, and a busy
     * user's is millions of rows (~14 ms at 10 M messages).
     */
    async function byBuckets(): Promise<Found[]> {
      const [span] = await sql<{ top: string | null; first: string | null }[]>`
        SELECT max(id) AS top, min(id) AS first FROM messages WHERE user_id = ${userId}`;
      if (span?.top == null || span.first == null) return [];
      const top = Number(span.top);
      const newest = bucketOf(top);
      const lowest = bucketOf(Number(span.first));
      const found: Found[] = [];
      // The share of the newest bucket its ids so far fill. Just begun: the one before too.
      const fill = (top % BUCKET_IDS + 1) / BUCKET_IDS;
      let hi = newest;
      let from = fill < 0.5 && hi > lowest ? hi - 1 : hi;
      while (true) {
        const buckets: string[] = [];
        for (let b = hi; b >= from; b--) buckets.push(bucketLexeme(userId, b));
        const indexed = `${key} & ${buckets.length > 1 ? `(${buckets.join(" | ")})` : buckets[0]}`;
        found.push(...await select("messages m", "m.id + 0 DESC", [matches, ...inScope], indexed));
        hi = from - 1;
        if (found.length >= wanted || hi < lowest) return found.slice(0, wanted);
        const asked = newest - hi;
        const perBucket = found.length / (fill + asked - 1);
        const needed = perBucket > 0
          ? Math.ceil((wanted - found.length) * 1.3 / perBucket)
          : Infinity;
        if (asked + needed > MAX_BUCKETS) break;
        from = Math.max(lowest, hi - needed + 1);
      }
      // `+ 0`: the bound is not a range of the primary key for the planner to walk.
      const rest = `m.id + 0 < ${(hi + 1) * BUCKET_IDS}`;
      found.push(...await select("messages m", "m.id + 0 DESC", [matches, rest]));
      return found.slice(0, wanted);
    }

    // The lexemes are written with the rows; should one ever be wrong, another user's message
    // still never leaves here.
    const theirs = rows.filter((r) =>
      r.owner === userId && (!scope || scope.includes(r.conversation_row))
    );
    if (theirs.length < rows.length) {
      log.error("search: rows outside the user's scope", { uid: userId });
    }
    return timePage(byTime(theirs), q.limit, complete);
  };
}
