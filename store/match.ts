/**
 * The `match` language of history and search, compiled to a safe FTS5 query.
 *
 * - `word`: some word of the message starts with it (`deplo` finds `deploy`, not `redeploy`);
 *   words of one or two letters match whole words only, unless a sender or a conversation
 *   narrows the search (SQLite's store/sqlite/messages/search.ts filters those rows by the short
 *   prefix instead);
 * - `"two words"`: those whole words, in that order (`"secret"` does not find `secretary`);
 * - `#name`: only that conversation; `@nick`: only that sender.
 *
 * User text never reaches FTS5 as syntax: it is cut into the tokens FTS5's unicode61 tokenizer
 * would see, and each token is emitted inside double quotes.
 */

/** A parsed `match` string. */
interface ParsedMatch {
  /** The FTS5 query, or undefined when no words were given. */
  fts?: string;
  /** `#name` restrictions (as typed). */
  conversations: string[];
  /** `@nick` restrictions (as typed). */
  senders: string[];
  /** True when words were given but none had a searchable character (`***`). */
  empty: boolean;
  /** The terms the FTS5 query is built from, in order. */
  terms: Term[];
}

/** One term of a query: a word or a phrase, matched as a prefix or whole. */
export interface Term {
  words: string[];
  /** True when the last word matches word starts (bare words of MIN_PREFIX letters or more). */
  prefix: boolean;
  /**
   * True for a bare word (typed without quotes): a prefix by intent. A shorter one is matched
   * whole by the index, or as a prefix by the caller when other criteria narrow the rows.
   */
  bare: boolean;
}

/** The FTS5 syntax of one term: its words quoted, a star for a prefix. */
export function termFts(term: Term): string {
  return `"${term.words.join(" ")}"${term.prefix ? "*" : ""}`;
}

/** Folds text the way the index does (case and diacritics), for comparisons outside FTS5. */
export function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** True when, for every prefix, some word of `text` starts with it (prefixes already folded). */
export function hasWordPrefixes(text: string, prefixes: string[]): boolean {
  const words = tokens(fold(text));
  return prefixes.every((p) => words.some((w) => w.startsWith(p)));
}

const TOKEN = /[\p{L}\p{N}\p{Mn}\p{Co}]+/gu;

/** Splits text into the tokens FTS5's unicode61 tokenizer would index. */
export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * The words of a query: its tokens that keep a letter or digit once folded. A token of only
 * combining marks folds to nothing, in FTS5 and in PostgreSQL alike: it is no word to look for.
 */
function queryWords(text: string): string[] {
  return tokens(text).filter((w) => fold(w) !== "");
}

/** Shorter words match whole words only: a one- or two-letter prefix would expand to a large
 * part of the vocabulary and make one query read most of the index. */
export const MIN_PREFIX = 3;

function term(words: string[], prefix: boolean): Term {
  return {
    words,
    prefix: prefix && words[words.length - 1].length >= MIN_PREFIX,
    bare: prefix && words.length === 1,
  };
}

/** At most this many words count; more would only make a slower query, never a better one. */
const MAX_TERMS = 16;
/** Input beyond this many characters is ignored. */
const MAX_INPUT = 1000;

/** Parses a `match` string. */
export function parseMatch(input: string): ParsedMatch {
  input = input.slice(0, MAX_INPUT);
  const parts: Term[] = [];
  const conversations: string[] = [];
  const senders: string[] = [];
  let sawWords = false;
  // Quoted phrases first (an unbalanced quote runs to the end), then the bare words.
  const re = /"([^"]*)("|$)|(\S+)/g;
  for (let m; (m = re.exec(input));) {
    if (m[1] !== undefined) {
      sawWords = true;
      const words = queryWords(m[1]);
      if (words.length) parts.push(term(words, false));
      continue;
    }
    const word = m[3];
    if (word.length > 1 && word.startsWith("#")) conversations.push(word);
    else if (word.length > 1 && word.startsWith("@")) senders.push(word.slice(1));
    else {
      sawWords = true;
      const words = queryWords(word);
      if (words.length) parts.push(term(words, true));
    }
  }
  const terms = parts.slice(0, MAX_TERMS);
  return {
    fts: terms.length ? terms.map(termFts).join(" AND ") : undefined,
    terms,
    conversations,
    senders,
    empty: sawWords && terms.length === 0,
  };
}
