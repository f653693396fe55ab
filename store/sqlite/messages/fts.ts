/**
 * The search index as queries see it: each user's FTS5 table in `search.db` (a connection of
 * its own, not ATTACHed: see docs/architecture.md), and how a query's terms are looked up there.
 */
import type { DatabaseSync } from "node:sqlite";
import { fold, hasWordPrefixes, MIN_PREFIX, type Term, termFts } from "../../match.ts";
import { userIndex } from "../search_file.ts";
import { statementCache } from "./statements.ts";

/** Rows sampled to decide how to look up a long prefix (see planTerms). */
const SAMPLE = 200;

/** An FTS5 query for `text` in the text column, restricted to `scope` tokens when given. */
export function scoped(text: string, scope?: string): string {
  return scope ? `scope : ${scope} AND text : (${text})` : `text : (${text})`;
}

/** The FTS5 lookups of searches; `db` holds the messages, `searchDb` the index. */
export function ftsIndex(db: DatabaseSync, searchDb: DatabaseSync) {
  const hasIndex = searchDb.prepare(
    "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?",
  );
  const textsOf = db.prepare(
    "SELECT text FROM messages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id DESC",
  );
  const prepared = statementCache();

  /** Ids of the rows of `table` matching `fts`, newest first, below id `below`. */
  function matchingIds(table: string, fts: string, below: number, limit: number): number[] {
    const sql = `SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ? AND rowid < ?
      ORDER BY rowid DESC LIMIT ?`;
    return (prepared(sql, searchDb).all(fts, below, limit) as { id: number }[]).map((r) => r.id);
  }

  return {
    matchingIds,

    /** Every id of `table` matching `fts`, as one JSON array (built by SQLite). */
    allMatching(table: string, fts: string): string {
      const sql = `SELECT json_group_array(rowid) AS ids FROM ${table} WHERE ${table} MATCH ?`;
      return (prepared(sql, searchDb).get(fts) as { ids: string }).ids;
    },

    /** The user's index table, or undefined when nothing of theirs is indexed yet. */
    indexOf(userId: number): string | undefined {
      const table = userIndex(userId);
      return hasIndex.get(table) ? table : undefined;
    },

    /**
     * The FTS5 text query for the terms. A long prefix of a common word (`that`) would make
     * FTS5 merge the lists of every matching term before the first row; such a word is looked
     * up by its first MIN_PREFIX letters through the prefix index instead, and the rows are
     * filtered by the full prefix in SQL (`prefixes`). A sample of the scoped rows decides: the
     * short prefix is used when it yields few rows or when the full prefix is a good share of
     * them.
     */
    planTerms(table: string, terms: Term[], scope?: string): { text: string; prefixes: string[] } {
      const prefixes: string[] = [];
      const parts = terms.map((term) => {
        const word = term.words[0];
        if (term.words.length !== 1 || !term.prefix || word.length <= MIN_PREFIX) {
          return termFts(term);
        }
        const short = `"${word.slice(0, MIN_PREFIX)}"*`;
        const ids = matchingIds(table, scoped(short, scope), Number.MAX_SAFE_INTEGER, SAMPLE);
        const sample = textsOf.all(JSON.stringify(ids)) as { text: string }[];
        const folded = fold(word);
        const hits = sample.filter((r) => hasWordPrefixes(r.text, [folded])).length;
        if (sample.length < SAMPLE || hits >= SAMPLE * 0.15) {
          prefixes.push(folded);
          return short;
        }
        return termFts(term);
      });
      return { text: parts.join(" AND "), prefixes };
    },
  };
}

/** The index lookups as the searches use them. */
export type FtsIndex = ReturnType<typeof ftsIndex>;
