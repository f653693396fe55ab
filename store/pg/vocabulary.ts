/**
 * Every word the messages hold, in a table of its own (`search_words`), so that a search for a
 * prefix asks the GIN index for whole words (store/pg/tsquery.ts says why that is cheaper).
 * Words are only ever added: one whose messages are gone expands a prefix to nothing found.
 */
import type { Sql } from "./db.ts";

/** Most whole words a prefix becomes; one that starts more stays a prefix for the index. */
const MAX_EXPANSION = 100;
/** Words this node knows are in the table; past it the memory starts again. */
const KNOWN = 200_000;

export interface Vocabulary {
  /** Those of `words` not known to be in the table, to add with the batch (a cache in front). */
  unknown(words: Iterable<string>): string[];
  /** Adds words in the writer's transaction (the cache learns them once it commits). */
  add(tx: Sql, words: string[]): Promise<void>;
  /** Marks words as in the table (their transaction committed). */
  learned(words: string[]): void;
  /** Each prefix's whole words, for those that start at most MAX_EXPANSION. */
  expand(prefixes: string[]): Promise<Map<string, string[]>>;
  /** How common words are, from PostgreSQL's statistics (refreshed every few minutes). */
  frequencies(): Promise<Frequencies>;
}

/** The share of messages that hold a word, for the words common enough to be counted. */
interface Frequencies {
  /** The word's share; for a word the statistics do not list, half the least listed one's. */
  of(word: string): number;
  /** Messages in all, about (the planner's count). */
  total: number;
}

/** How long the statistics are kept before they are read again. */
const FREQUENCIES_MS = 5 * 60_000;

/** The vocabulary of the messages on `sql`. */
export function pgVocabulary(sql: Sql): Vocabulary {
  let known = new Set<string>();
  let stats: { at: number; value: Promise<Frequencies> } | undefined;
  return {
    frequencies() {
      if (!stats || Date.now() - stats.at > FREQUENCIES_MS) {
        stats = { at: Date.now(), value: readFrequencies(sql) };
      }
      return stats.value;
    },
    unknown(words) {
      const out: string[] = [];
      for (const w of words) if (!known.has(w)) out.push(w);
      return out;
    },
    async add(tx, words) {
      if (!words.length) return;
      await tx`INSERT INTO search_words (word) SELECT unnest(${words}::text[])
        ON CONFLICT DO NOTHING`;
    },
    learned(words) {
      if (known.size + words.length > KNOWN) known = new Set();
      for (const w of words) known.add(w);
    },
    async expand(prefixes) {
      const out = new Map<string, string[]>();
      for (const p of new Set(prefixes)) {
        // In the C collation a word that starts with p sorts at or after p and before p followed
        // by the last code point; the btree reads just those.
        const rows = await sql<{ word: string }[]>`SELECT word FROM search_words
          WHERE word >= ${p} AND word < ${p + "\u{10FFFF}"} ORDER BY word
          LIMIT ${MAX_EXPANSION + 1}`;
        if (rows.length <= MAX_EXPANSION) out.set(p, rows.map((r) => r.word));
      }
      return out;
    },
  };
}

/** Fills the table from the messages' words (after a copy into an empty database). */
export async function refillVocabulary(sql: Sql): Promise<void> {
  await sql`INSERT INTO search_words (word)
    SELECT DISTINCT w.lexeme FROM messages, unnest(words) AS w
    WHERE left(w.lexeme, 1) <> '~' ON CONFLICT DO NOTHING`;
}

/**
 * The most common words of `messages.words` as ANALYZE (autovacuum's, or the bench's) counted
 * them: PostgreSQL lists the ~1,000 most common elements of a tsvector column with their share.
 * None listed yet (a new database): every word is as rare as any.
 */
async function readFrequencies(sql: Sql): Promise<Frequencies> {
  const rows = await sql<{ word: string | null; share: number }[]>`
    SELECT x.word, x.share FROM pg_stats s,
      unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS x(word, share)
    WHERE s.schemaname = current_schema() AND s.tablename = 'messages' AND s.attname = 'words'`
    .catch(() => []);
  const shares = new Map<string, number>();
  let least = 1;
  for (const r of rows) {
    if (r.word === null) continue; // the array of shares ends with its minimum, maximum, nulls
    shares.set(r.word, r.share);
    least = Math.min(least, r.share);
  }
  const rare = least / 2;
  const [size] = await sql<{ total: number }[]>`
    SELECT greatest(reltuples, 0)::float8 AS total FROM pg_class WHERE oid = 'messages'::regclass`
    .catch(() => []);
  return { of: (word) => shares.get(word) ?? rare, total: size?.total ?? 0 };
}
