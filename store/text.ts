/** The text of a message as every backend stores it. */

/** Longest message text stored, in UTF-16 code units; the rest is cut off. */
const MAX_TEXT = 10_000;

/** The text as stored: at most MAX_TEXT code units, never half a surrogate pair. */
export function capText(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const cut = text.slice(0, MAX_TEXT);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
