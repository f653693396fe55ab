/** Whether a message should notify the user: a mention in a channel, or any private message. */
import { boundedCache } from "../../lib/bounded_cache.ts";

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Word edges are positions not touching a letter, digit or one of the characters nicks are made
 * of, so `bob` matches "bob: hi" and "hi @bob!" but not "bobby" or "kabob".
 */
const EDGE = "[\\p{L}\\p{N}_\\-\\[\\]\\\\`^{}|]";

/** One regexp matching any of `words` as a whole word, case-insensitively; undefined for none. */
function wordsRegExp(words: readonly string[]): RegExp | undefined {
  const alternatives = words.filter((w) => w).map(escape);
  if (!alternatives.length) return undefined;
  return new RegExp(`(?<!${EDGE})(?:${alternatives.join("|")})(?!${EDGE})`, "iu");
}

/** What decides a highlight. */
interface HighlightInput {
  text: string;
  /** The user's current nick on the connection. */
  nick: string;
  keywords: readonly string[];
  /** True for a private conversation (always a highlight). */
  isPrivate: boolean;
}

/**
 * Compiled regexps by nick and keyword list: every line of a channel is tested, so the pattern is
 * built once per (nick, keywords) rather than once per keyword per line. Bounded, the least
 * recently used going first: the (nick, keywords) of busy channels stay compiled.
 */
const MAX_COMPILED = 1000;
const compiled = boundedCache<string, { re?: RegExp }>(MAX_COMPILED);

/** The last (nick, keyword list) asked for: a burst asks for the same one line after line. */
let last: { nick: string; keywords: readonly string[]; re: RegExp | undefined } | undefined;

function mentionRegExp(nick: string, keywords: readonly string[]): RegExp | undefined {
  if (last && last.nick === nick && last.keywords === keywords) return last.re;
  const re = compiledRegExp(nick, keywords);
  last = { nick, keywords, re };
  return re;
}

function compiledRegExp(nick: string, keywords: readonly string[]): RegExp | undefined {
  const words = [nick, ...keywords.map((k) => k.trim())];
  const key = words.join("\n");
  const hit = compiled.get(key);
  if (hit) return hit.re;
  const re = wordsRegExp(words);
  compiled.set(key, { re });
  return re;
}

/** True when the message should become a notification. */
export function isHighlight(input: HighlightInput): boolean {
  if (input.isPrivate) return true;
  return mentionRegExp(input.nick, input.keywords)?.test(input.text) ?? false;
}
