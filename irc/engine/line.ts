/**
 * The one writer of outgoing IRC lines: a command and its parameters become one line. Every line
 * Parley sends (commands, rejoins, nick regain, CTCP answers, the transport's PONG) is built here,
 * so a parameter with a space can never turn into several, and CR, LF or NUL never reach the wire.
 */

/** A line built by `ircLine` (or checked by `quotedLine`): the only kind the send queue takes. */
export type IrcLine = string & { readonly __ircLine: true };

/** A command and parameters that cannot make a valid line; the message says why, in plain words. */
export class LineError extends Error {
  override name = "LineError";
}

/** A named command (`PRIVMSG`) or a numeric (`001`). */
const COMMAND = /^(?:[A-Za-z]+|[0-9]{3})$/;
const BREAKING = /[\r\n\0]/;
/** RFC 1459: at most 15 parameters. */
const MAX_PARAMS = 15;

/** Needs the trailing form (`:` first): empty, starting with `:`, or containing a space. */
const needsColon = (p: string) => p === "" || p.startsWith(":") || p.includes(" ");

/**
 * Builds one line (without CR LF). The last parameter gets a `:` when it needs one; any other
 * parameter that is empty, starts with `:` or contains a space is refused, as is CR, LF or NUL
 * anywhere.
 */
export function ircLine(command: string, ...params: string[]): IrcLine {
  if (!COMMAND.test(command)) throw new LineError(`Not an IRC command: ${command.slice(0, 32)}`);
  if (params.length > MAX_PARAMS) throw new LineError(`Too many parameters for ${command}.`);
  const words = [command];
  params.forEach((p, i) => {
    if (BREAKING.test(p)) throw new LineError("A line cannot contain CR, LF or NUL.");
    if (!needsColon(p)) words.push(p);
    else if (i === params.length - 1) words.push(`:${p}`);
    else {
      throw new LineError(
        `Parameter ${i + 1} of ${command} must be one word: ${JSON.stringify(p.slice(0, 64))}.`,
      );
    }
  });
  return words.join(" ") as IrcLine;
}

/**
 * A line the user typed whole (`/quote`): read as a command and parameters (a word starting with
 * `:` begins the trailing parameter) and written again by `ircLine`, so it obeys the same rules.
 */
export function quotedLine(text: string): IrcLine {
  if (BREAKING.test(text)) throw new LineError("A line cannot contain CR, LF or NUL.");
  let trimmed = text.trim();
  // IRCv3 tags first (`@+typing=active TAGMSG #chan`): one word, kept as written.
  let tags = "";
  if (trimmed.startsWith("@")) {
    const sp = trimmed.indexOf(" ");
    if (sp < 0 || sp > MAX_TAG_BYTES) throw new LineError("Tags must be followed by a command.");
    tags = trimmed.slice(0, sp + 1);
    trimmed = trimmed.slice(sp + 1).trim();
  }
  const colon = trimmed.startsWith(":") ? 0 : trimmed.indexOf(" :");
  const head = colon < 0 ? trimmed : trimmed.slice(0, colon);
  const words = head.split(/ +/).filter(Boolean);
  if (colon >= 0) words.push(trimmed.slice(colon === 0 ? 1 : colon + 2));
  const [command = "", ...params] = words;
  return (tags + ircLine(command, ...params)) as IrcLine;
}

/** The most bytes of a line's client tags, `@` included (IRCv3 message-tags: 4094 and the `@`). */
const MAX_TAG_BYTES = 4095;
