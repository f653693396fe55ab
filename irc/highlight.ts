/** Whether a message should notify the user: a mention in a channel, or any private message. */

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * True when `text` contains `word` as a whole word, case-insensitively. Word edges are positions
 * not touching a letter, digit or one of the characters nicks are made of, so `bob` matches
 * "bob: hi" and "hi @bob!" but not "bobby" or "kabob".
 */
export function containsWord(text: string, word: string): boolean {
  if (!word) return false;
  const edge = "[\\p{L}\\p{N}_\\-\\[\\]\\\\`^{}|]";
  return new RegExp(`(?<!${edge})${escape(word)}(?!${edge})`, "iu").test(text);
}

/** What decides a highlight. */
export interface HighlightInput {
  text: string;
  /** The user's current nick on the connection. */
  nick: string;
  keywords: readonly string[];
  /** True for a private conversation (always a highlight). */
  isPrivate: boolean;
}

/** True when the message should become a notification. */
export function isHighlight(input: HighlightInput): boolean {
  if (input.isPrivate) return true;
  if (containsWord(input.text, input.nick)) return true;
  return input.keywords.some((k) => containsWord(input.text, k.trim()));
}
