/**
 * The `match` language (store/match.ts) for PostgreSQL's full-text search. A message's words
 * are cut and folded here, as match.ts does for SQLite, and handed over as tsvector and tsquery
 * literals: PostgreSQL's own parser would cut them by the database's locale (under `C` it drops
 * every non-ASCII letter), so both sides bypass it and the `simple` lexemes are the tokens
 * themselves. A query's terms become quoted lexemes, `:*` for a prefix, `<->` inside a phrase.
 */
import { fold, type Term, tokens } from "../match.ts";
import { FIRST_EVENT_CODE } from "../../protocol/messages.ts";

/**
 * Tokens are cut to this many characters, on both sides: PostgreSQL refuses a lexeme over 2047
 * bytes. Absurdly long words then match by their beginning.
 */
const MAX_LEXEME = 500;
/** PostgreSQL keeps word positions up to this; later words share it (phrases there are rare). */
const MAX_POSITION = 16383;

/**
 * Where and when a message was said, as lexemes of its tsvector: `~u<user id>`, `~c<conversation
 * row id>` and `~b<user id>.<id bucket>` (no token of a text starts with `~`). A search ANDs its
 * words with them, so the GIN index itself keeps one user's (or one conversation's) rows,
 * skipping through the scope's posting list, instead of fetching every row in the database with
 * the word and dropping the others' after. The bucket (BUCKET_IDS consecutive ids) lets a search
 * ask for a user's newest rows first: GIN cannot give rows in id order, and a word with
 * thousands of matches in a user's history would otherwise cost a fetch of every one.
 */
interface Scope {
  userId: number;
  conversation: number;
  /** The row's id (its bucket). */
  id: number;
}

/** Consecutive message ids of one bucket (of all users): ~6 days of a home server's traffic. */
export const BUCKET_IDS = 65536;
/** The bucket of a message id. */
export const bucketOf = (id: number) => Math.floor(id / BUCKET_IDS);

/** The lexeme of a user's messages. */
export const userLexeme = (userId: number) => `'~u${userId}'`;
/** The lexeme of a conversation's messages. */
export const conversationLexeme = (conversation: number) => `'~c${conversation}'`;
/** The lexeme of a user's messages in one bucket of ids. */
export const bucketLexeme = (userId: number, bucket: number) => `'~b${userId}.${bucket}'`;

/**
 * The tsvector literal of a message's text: its folded tokens with their positions. `words`, when
 * given, gathers the lexemes' texts (for store/pg/vocabulary.ts).
 */
/**
 * The words stored with a message row: none for a channel event (a join, a part...), which is
 * history and never a search result, and was most of what a busy network's joins stored.
 */
export function messageWords(
  text: string,
  type: number,
  scope: Scope,
  words?: Set<string>,
): string {
  return type >= FIRST_EVENT_CODE ? "" : tsvectorOf(text, scope, words);
}

/** @internal test seam */
export function tsvectorOf(text: string, scope?: Scope, words?: Set<string>): string {
  const out: string[] = [];
  if (scope) {
    out.push(
      userLexeme(scope.userId),
      conversationLexeme(scope.conversation),
      bucketLexeme(scope.userId, bucketOf(scope.id)),
    );
  }
  let pos = 0;
  for (const word of tokens(fold(text))) {
    pos++;
    const text = lexemeText(word);
    words?.add(text);
    out.push(`${quote(text)}:${Math.min(pos, MAX_POSITION)}`);
  }
  return out.join(" ");
}

/** A token as a lexeme's text: folded, and cut to what PostgreSQL takes. */
function lexemeText(word: string): string {
  return fold(word).slice(0, MAX_LEXEME);
}

/** A lexeme's text quoted for a tsvector or tsquery literal (tokens hold no quotes; escaped anyway). */
function quote(text: string): string {
  return `'${text.replaceAll("'", "''").replaceAll("\\", "\\\\")}'`;
}

/**
 * A prefix as a tsquery operand: the whole words it starts (an OR), its own text when no word
 * starts with it (which nothing holds either), or `:*` when they are not listed.
 */
function prefixLiteral(text: string, whole: string[] | undefined): string {
  if (!whole) return `${quote(text)}:*`;
  if (!whole.length) return quote(text);
  return whole.length > 1 ? `(${whole.map(quote).join(" | ")})` : quote(whole[0]);
}

/** A token quoted as a lexeme. */
function lexeme(word: string): string {
  return quote(lexemeText(word));
}

/** Whether a term's last word is matched as a prefix (see toTsquery). */
function isPrefix(term: Term, shortAsPrefix = false): boolean {
  return term.prefix || (shortAsPrefix && term.bare);
}

/** The prefixes of `terms` (their last words, as lexeme texts), for the vocabulary to expand. */
export function prefixesOf(terms: Term[], shortAsPrefix = false): string[] {
  return terms.filter((t) => isPrefix(t, shortAsPrefix)).map((t) =>
    lexemeText(t.words[t.words.length - 1])
  );
}

/**
 * The tsquery literal of `terms`, all required. `shortAsPrefix` matches bare words of one or two
 * letters as prefixes too (when a sender or conversation narrows the rows, as in SQLite).
 * `expanded` gives a prefix's whole words (store/pg/vocabulary.ts): GIN matches a prefix by
 * gathering every row of every word it starts, in a bitmap, before anything narrows them, while
 * whole words are skipped through with the user's (or bucket's) rows. A prefix missing from it
 * stays a prefix (`:*`).
 */
export function toTsquery(
  terms: Term[],
  shortAsPrefix = false,
  expanded?: Map<string, string[]>,
): string {
  return terms.map((t) => {
    const words = t.words.map(lexeme);
    if (isPrefix(t, shortAsPrefix)) {
      const text = lexemeText(t.words[t.words.length - 1]);
      words[words.length - 1] = prefixLiteral(text, expanded?.get(text));
    }
    return words.length > 1 ? `(${words.join(" <-> ")})` : words[0];
  }).join(" & ");
}

/**
 * The one word (or a prefix's words) of `terms` that GIN is asked for: the least common, by
 * `share` (store/pg/vocabulary.ts; for a prefix the sum of its words'). GIN reads an entry it
 * cannot skip through in full: a common word beside a rare one and a scope's lexeme cost 16 ms
 * where the rare one and the scope cost 0.3 (10 M messages), so the other words are checked on
 * the rows it returns (`toTsquery`'s whole query). Returns the key, its share and how many
 * words it names (an OR of them, read in full).
 */
export function keyOf(
  terms: Term[],
  share: (word: string) => number,
  shortAsPrefix = false,
  expanded?: Map<string, string[]>,
): { key: string; share: number; words: number } {
  let best = "";
  let cost = Infinity;
  let count = 1;
  for (const t of terms) {
    t.words.forEach((word, i) => {
      const text = lexemeText(word);
      let c = share(text);
      let literal = quote(text);
      let n = 1;
      if (i === t.words.length - 1 && isPrefix(t, shortAsPrefix)) {
        const whole = expanded?.get(text);
        literal = prefixLiteral(text, whole);
        // Unlisted, the words it starts are all read; listed, their shares add up.
        if (!whole) [c, n] = [1, Infinity];
        else [c, n] = [whole.reduce((sum, w) => sum + share(w), 0), Math.max(whole.length, 1)];
      }
      // Equal shares (rare words): the longer, as likely the rarer.
      if (c < cost || (c === cost && literal.length > best.length)) {
        [best, cost, count] = [literal, c, n];
      }
    });
  }
  return { key: best, share: cost, words: count };
}
