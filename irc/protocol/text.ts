/**
 * The text of the bytes of IRC lines. UTF-8, as nearly every client and server writes it today; a
 * line that is not UTF-8 is read as Windows-1252 (Latin-1 and its printable extras), which older
 * clients on European networks still send, as irssi's and weechat's fallback reads it: "café"
 * stays readable instead of losing its letters to U+FFFD, and goes on as UTF-8.
 */

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const LEGACY = new TextDecoder("windows-1252");

/** One line's text. */
export function lineText(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    return LEGACY.decode(bytes);
  }
}

/**
 * The text of whole lines, each ended by "\n": in one call when all is UTF-8 (the usual case, and
 * as fast as a lenient decoder), else line by line, so that one Latin-1 line changes no other.
 */
export function linesText(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    let out = "";
    for (let start = 0; start < bytes.length;) {
      const nl = bytes.indexOf(0x0a, start);
      const end = nl === -1 ? bytes.length : nl + 1;
      out += lineText(bytes.subarray(start, end));
      start = end;
    }
    return out;
  }
}
