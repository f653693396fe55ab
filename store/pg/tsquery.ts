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
 * Where a message was said, as lexemes of its tsvector: `~u<user id>` and `~c<conversation row
 * id>` (no token of a text starts with `~`). A search ANDs its words with them, so the GIN index
 * itself keeps one user's (or one conversation's) rows, skipping through the scope's posting list,
 * instead of fetching every row in the database with the word and dropping the others' after.
 */
export interface Scope {
  userId: number;
  conversation: number;
}

/** The lexeme of a user's messages. */
export const userLexeme = (userId: number) => `'~u${userId}'`;
/** The lexeme of a conversation's messages. */
export const conversationLexeme = (conversation: number) => `'~c${conversation}'`;

/** The tsvector literal of a message's text: its folded tokens with their positions. */
export function tsvectorOf(text: string, scope?: Scope): string {
  const out: string[] = [];
  if (scope) out.push(userLexeme(scope.userId), conversationLexeme(scope.conversation));
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
