/**
 * The `match` language (store/match.ts) for PostgreSQL's full-text search. A message's words
 * are cut and folded here, as match.ts does for SQLite, and handed over as tsvector and tsquery
 * literals: PostgreSQL's own parser would cut them by the database's locale (under `C` it drops
 * every non-ASCII letter), so both sides bypass it and the `simple` lexemes are the tokens
 * themselves. A query's terms become quoted lexemes, `:*` for a prefix, `<->` inside a phrase.
 */
import { fold, type Term, tokens } from "../match.ts";

/**
 * Tokens are cut to this many characters, on both sides: PostgreSQL refuses a lexeme over 2047
 * bytes. Absurdly long words then match by their beginning.
 */
const MAX_LEXEME = 500;
/** PostgreSQL keeps word positions up to this; later words share it (phrases there are rare). */
const MAX_POSITION = 16383;

/**
 * Where a message was said, as lexemes of its tsvector (no token of a text starts with `~`):
 * `~u<user id>b<id bucket>`, the user's messages among 65,536 consecutive ids, and
 * `~c<conversation row id>`. A search ANDs its words with them, so the GIN index itself keeps one
 * user's rows of the newest buckets first (store/pg/search.ts), skipping through their short
 * posting lists, instead of fetching every row with the word, the whole database over, and sorting.
 */
export interface Scope {
  id: number;
  userId: number;
  conversation: number;
}

/** Bits of a message id below its bucket: 65,536 ids per bucket. */
export const BUCKET_BITS = 16;
/** The bucket of a message id. */
export const bucketOf = (id: number) => Math.floor(id / 2 ** BUCKET_BITS);
/** The lexeme of a user's messages in one id bucket. */
export const userBucketLexeme = (userId: number, bucket: number) => `'~u${userId}b${bucket}'`;
/** The lexeme of a conversation's messages. */
export const conversationLexeme = (conversation: number) => `'~c${conversation}'`;

/** The scope lexemes of a message, to append to its words' tsvector. */
export function scopeLexemes(scope: Scope): string {
  return `${userBucketLexeme(scope.userId, bucketOf(scope.id))} ${
    conversationLexeme(scope.conversation)
  }`;
}

/** The tsvector literal of a message's text: its folded tokens with their positions. */
export function tsvectorOf(text: string, scope?: Scope): string {
  const out: string[] = [];
  if (scope) out.push(scopeLexemes(scope));
  let pos = 0;
  for (const word of tokens(fold(text))) {
    pos++;
    out.push(`${lexeme(word)}:${Math.min(pos, MAX_POSITION)}`);
  }
  return out.join(" ");
}

/** A lexeme quoted for a tsvector or tsquery literal (tokens hold no quotes; escaped anyway). */
function lexeme(word: string): string {
  return `'${fold(word).slice(0, MAX_LEXEME).replaceAll("'", "''").replaceAll("\\", "\\\\")}'`;
}

/**
 * The tsquery literal of `terms`, all required. `shortAsPrefix` matches bare words of one or two
 * letters as prefixes too (when a sender or conversation narrows the rows, as in SQLite).
 */
export function toTsquery(terms: Term[], shortAsPrefix = false): string {
  return terms.map((t) => {
    const prefix = t.prefix || (shortAsPrefix && t.bare);
    const words = t.words.map(lexeme);
    if (prefix) words[words.length - 1] += ":*";
    return words.length > 1 ? `(${words.join(" <-> ")})` : words[0];
  }).join(" & ");
}
