/**
 * Reads a text file line by line as it streams in: a log of hundreds of megabytes never sits in
 * memory whole, and a "line" without an end (a binary file named like a log) is skipped once it
 * passes the limit instead of growing without bound.
 */

/** Longer lines are not messages any IRC server sends; the importers skip them. */
const MAX_LINE_BYTES = 64 * 1024;

/** One line, or a marker for a line cut off at the limit (counted, never shown). */
export type Line = { text: string } | { tooLong: true };

/**
 * The lines of a byte stream (UTF-8; "\n" or "\r\n" ends a line; a last line without one counts).
 * At most `maxBytes` of one line are held at any time.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  /** In a line already past the limit: drop bytes until its end. */
  let skipping = false;
  const finish = (): Line => {
    const whole = new Uint8Array(pendingBytes);
    let at = 0;
    for (const part of pending) {
      whole.set(part, at);
      at += part.length;
    }
    pending = [];
    pendingBytes = 0;
    return { text: decoder.decode(whole).replace(/\r$/, "") };
  };
  for await (const chunk of stream) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!skipping) {
        const part = chunk.subarray(start, end);
        if (pendingBytes + part.length > maxBytes) {
          pending = [];
          pendingBytes = 0;
          skipping = true;
        } else if (part.length) {
          // A copy: the stream may reuse its chunk's buffer.
          pending.push(part.slice());
          pendingBytes += part.length;
        }
      }
      if (nl === -1) break;
      if (skipping) {
        skipping = false;
        yield { tooLong: true };
      } else {
        yield finish();
      }
      start = nl + 1;
    }
  }
  if (skipping) yield { tooLong: true };
  else if (pendingBytes) yield finish();
}
