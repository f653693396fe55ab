/**
 * CTCP (a PRIVMSG or NOTICE whose text is `\x01TYPE argument\x01`): wrapping and unwrapping in one
 * place, ACTION (`/me`) included, and the answers Parley gives to the requests it answers.
 */

const DELIM = "\x01";
const ACTION_OPEN = "\x01ACTION";

/** `\x01TYPE argument\x01` (`\x01TYPE\x01` without an argument). */
export function ctcpWrap(type: string, arg = ""): string {
  return arg ? `${DELIM}${type} ${arg}${DELIM}` : `${DELIM}${type}${DELIM}`;
}

/** Whether a text is a CTCP (starts with `\x01`). */
export function isCtcp(text: string): boolean {
  return text.charCodeAt(0) === 1;
}

/**
 * Whether a text is a whole CTCP, closed by its `\x01` (an unclosed one is read as plain text, as
 * most clients read it).
 */
export function isWholeCtcp(text: string): boolean {
  return text.length > 1 && text.charCodeAt(0) === 1 && text.charCodeAt(text.length - 1) === 1;
}

/** A whole CTCP's type (upper case) and its argument; undefined for any other text. */
export function ctcpParts(text: string): { type: string; arg: string } | undefined {
  if (!isWholeCtcp(text)) return undefined;
  const body = text.slice(1, -1);
  const space = body.indexOf(" ");
  return space < 0
    ? { type: body.toUpperCase(), arg: "" }
    : { type: body.slice(0, space).toUpperCase(), arg: body.slice(space + 1) };
}

/** An ACTION's text (`\x01ACTION waves\x01` -> `waves`), else undefined. */
export function actionText(text: string): string | undefined {
  if (!text.startsWith(ACTION_OPEN)) return undefined;
  const end = text.length > 1 && text.endsWith(DELIM) ? text.length - 1 : text.length;
  if (end === ACTION_OPEN.length) return "";
  if (text.charCodeAt(ACTION_OPEN.length) !== 32) return undefined;
  return text.slice(ACTION_OPEN.length + 1, end);
}

/** Whether a text is an ACTION. */
export function isAction(text: string): boolean {
  return actionText(text) !== undefined;
}

/** The text of `/me waves` as sent: `\x01ACTION waves\x01`. */
export function actionWrap(text: string): string {
  return ctcpWrap("ACTION", text);
}

/** What wrapping an ACTION adds to its text, in bytes (`\x01ACTION ` and `\x01`). */
export const ACTION_OVERHEAD = ACTION_OPEN.length + 2;

/** The CTCP requests Parley answers. */
const ANSWERED = ["CLIENTINFO", "PING", "TIME", "VERSION"];
/** Longest PING argument echoed back. */
const MAX_PING_ARG = 64;

/**
 * The NOTICE body answering a CTCP request (without its `\x01`s), or undefined when Parley does
 * not answer it. Anyone on IRC can send them, so the connection answers only a few per interval
 * and behind the user's own lines.
 */
export function ctcpAnswer(type: string, arg: string, version: string): string | undefined {
  switch (type.toUpperCase()) {
    case "VERSION":
      return `VERSION ${version}`;
    case "PING":
      return `PING ${arg.slice(0, MAX_PING_ARG)}`;
    case "TIME":
      return `TIME ${new Date().toUTCString()}`;
    case "CLIENTINFO":
      return `CLIENTINFO ${ANSWERED.join(" ")}`;
  }
  return undefined;
}
