/**
 * IRC masks (`nick!user@host` with `*` and `?` wildcards): what a user types to ignore or ban
 * someone, read into one form, and matched against a person as IRC tells who they are.
 */
import { ircLower } from "../lib/casefold.ts";
import { MAX_MASK_LENGTH } from "../protocol/limits.ts";

/** Who sent a line: the nick, and the ident and host when the server said. */
export interface Who {
  nick: string;
  user?: string;
  host?: string;
}

/**
 * A typed nick or mask in its full, casefolded form: `bob` -> `bob!*@*`, `bob!id` -> `bob!id@*`,
 * `bob@host` -> `bob!*@host`, `*!*@host` as it is. Undefined for what is no mask (spaces,
 * control characters, an empty part, too long).
 */
export function normalizeMask(typed: string): string | undefined {
  const text = typed.trim();
  // deno-lint-ignore no-control-regex -- control characters are what it refuses
  if (!text || text.length > MAX_MASK_LENGTH || /[\s\x00-\x1f\x7f,]/.test(text)) return undefined;
  const at = text.lastIndexOf("@");
  const [left, host] = at < 0 ? [text, "*"] : [text.slice(0, at), text.slice(at + 1)];
  const bang = left.indexOf("!");
  const [nick, user] = bang < 0 ? [left, "*"] : [left.slice(0, bang), left.slice(bang + 1)];
  if (!nick || !user || !host || user.includes("!") || host.includes("!")) return undefined;
  return ircLower(`${nick}!${user}@${host}`);
}

/** True when `text` may be a nick and not a mask (no wildcard, no `!` or `@`). */
export function isPlainNick(text: string): boolean {
  return !/[*?!@]/.test(text);
}

/**
 * Whether `pattern` (with `*` and `?`) matches all of `text`. A pattern typed by a user must not
 * make matching slow: this walks both strings once, going back only to the last `*`.
 */
function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === "?" || pattern[p] === text[t])) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}

/** Whether a normalized `mask` matches `who`; an unknown ident or host matches only `*`. */
export function maskMatches(mask: string, who: Who): boolean {
  const full = ircLower(`${who.nick}!${who.user ?? "\0"}@${who.host ?? "\0"}`);
  return globMatch(mask, full);
}
