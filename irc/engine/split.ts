/** Splitting outgoing text into IRC lines that fit the server's line limit. */

const encoder = new TextEncoder();

/**
 * Bytes of `text` in UTF-8.
 *
 * @internal test seam
 */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** Default IRC line limit in bytes, CR LF included (RFC 1459); ISUPPORT LINELEN may raise it. */
export const LINE_LIMIT = 512;

/**
 * How many bytes of text fit in one `COMMAND target :text` line, leaving room for the prefix
 * (`:nick!user@host `) the server adds when it relays the line to others. The user and host parts
 * are unknown to us, so their longest usual lengths are assumed.
 */
export function textBudget(
  command: string,
  target: string,
  nick: string,
  lineLimit = LINE_LIMIT,
): number {
  const prefix = 1 + byteLength(nick) + 1 + 10 + 1 + 63 + 1; // ":nick!user@host "
  const rest = byteLength(command) + 1 + byteLength(target) + 2 + 2; // "CMD target :" + CRLF
  return Math.max(32, lineLimit - prefix - rest);
}

/** Grapheme clusters: a letter with its accents, an emoji with its modifiers and joiners. */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Splits one long word into pieces of at most `max` bytes, between grapheme clusters, so an
 * emoji or an accent is never torn from its letter. A single cluster longer than `max` (a letter
 * under hundreds of combining marks) is cut between code points, as nothing else fits.
 */
function splitWord(word: string, max: number): string[] {
  const out: string[] = [];
  let cur = "";
  let curBytes = 0;
  const add = (piece: string, b: number) => {
    if (curBytes + b > max && cur) {
      out.push(cur);
      cur = "";
      curBytes = 0;
    }
    cur += piece;
    curBytes += b;
  };
  for (const { segment } of graphemes.segment(word)) {
    const b = byteLength(segment);
    if (b <= max) add(segment, b);
    else for (const ch of segment) add(ch, byteLength(ch));
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Splits text into lines of at most `maxBytes` bytes each: first at line breaks, then at the last
 * space that fits; a word longer than a whole line is cut between grapheme clusters. Empty lines
 * are dropped (IRC cannot send them).
 */
export function splitText(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line.trim() === "") continue;
    let cur = "";
    for (const word of line.trimEnd().split(" ")) {
      const candidate = cur === "" ? word : `${cur} ${word}`;
      if (byteLength(candidate) <= maxBytes) {
        cur = candidate;
        continue;
      }
      if (cur !== "") out.push(cur);
      if (byteLength(word) <= maxBytes) {
        cur = word;
      } else {
        const pieces = splitWord(word, maxBytes);
        cur = pieces.pop() ?? "";
        out.push(...pieces);
      }
    }
    if (cur !== "") out.push(cur);
  }
  return out;
}
