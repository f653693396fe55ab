/**
 * The IRC line format, in one place: a line read into tags, source, command and parameters
 * (IRCv3 message-tags, RFC 1459), and the one writer of every line Parley makes, upstream or to an
 * attached client. A parameter with a space can never turn into several, and CR, LF or NUL never
 * reach the wire.
 */

/** The most bytes of a line's tags (IRCv3 message-tags), `@` and the space after included. */
export const MAX_TAG_BYTES = 8191;
/** The most bytes of the rest of a line, CR LF included (RFC 1459). */
export const MAX_BODY_BYTES = 512;
/** The most bytes of the client tags a user may type before a command (`/quote @+typing=...`). */
const MAX_CLIENT_TAG_BYTES = 4095;
/** RFC 1459: at most 15 parameters. */
const MAX_PARAMS = 15;

/** One line, read. Tag values are unescaped; a tag without a value is "". */
export interface IrcMessage {
  tags: Map<string, string>;
  /** The source without its `:` ("" when none). */
  prefix: string;
  /** Upper-cased. */
  command: string;
  params: string[];
}

/**
 * Where the parts of a line's head are, read without copying anything: the tags, the source and
 * the command. The lean path of a burst reads only this and the few parameters it wants.
 */
interface LineHead {
  /** The line without a trailing CR. */
  line: string;
  /** The space after the tags (they are `line.slice(1, tagsEnd)`); 0 without tags. */
  tagsEnd: number;
  /** Where the source starts, after its `:`; -1 without one. */
  source: number;
  /** Where the source ends. */
  sourceEnd: number;
  /** Where the command starts and ends (as written: not upper-cased). */
  command: number;
  commandEnd: number;
  /** Where the parameters start (the line's length when there are none). */
  params: number;
}

const SPACE = 32;
const COLON = 58;
const AT = 64;

/** The first index from `i` that is not a space. */
function skipSpaces(line: string, i: number): number {
  while (line.charCodeAt(i) === SPACE) i++;
  return i;
}

/**
 * Finds a line's tags, source and command; undefined when it has no command, or tags over
 * MAX_TAG_BYTES. With `into`, fills that object in and returns it (a hot path keeps one).
 */
export function readHead(input: string, into?: LineHead): LineHead | undefined {
  const line = input.charCodeAt(input.length - 1) === 13 ? input.slice(0, -1) : input;
  let at = 0;
  let tagsEnd = 0;
  if (line.charCodeAt(0) === AT) {
    tagsEnd = line.indexOf(" ");
    if (tagsEnd < 0) return undefined;
    if (tagsEnd * 3 >= MAX_TAG_BYTES && !tagsFit(line, tagsEnd + 1)) return undefined;
    at = tagsEnd + 1;
    if (line.charCodeAt(at) === SPACE) at = skipSpaces(line, at);
  }
  let source = -1;
  let sourceEnd = -1;
  if (line.charCodeAt(at) === COLON) {
    source = at + 1;
    sourceEnd = line.indexOf(" ", at);
    if (sourceEnd < 0) return undefined;
    at = sourceEnd + 1;
    if (line.charCodeAt(at) === SPACE) at = skipSpaces(line, at);
  }
  let commandEnd = line.indexOf(" ", at);
  if (commandEnd < 0) commandEnd = line.length;
  if (commandEnd === at) return undefined;
  let params = commandEnd;
  if (line.charCodeAt(params) === SPACE) params = skipSpaces(line, params + 1);
  if (!into) return { line, tagsEnd, source, sourceEnd, command: at, commandEnd, params };
  into.line = line;
  into.tagsEnd = tagsEnd;
  into.source = source;
  into.sourceEnd = sourceEnd;
  into.command = at;
  into.commandEnd = commandEnd;
  into.params = params;
  return into;
}

/** Whether the first `n` characters of `line` are at most MAX_TAG_BYTES bytes in UTF-8. */
function tagsFit(line: string, n: number): boolean {
  if (n > MAX_TAG_BYTES) return false;
  if (n * 3 <= MAX_TAG_BYTES) return true;
  return new TextEncoder().encode(line.slice(0, n)).length <= MAX_TAG_BYTES;
}

/** The parameters of a line whose head was read. */
export function paramsOf(head: LineHead): string[] {
  const { line } = head;
  const params: string[] = [];
  let at = head.params;
  while (at < line.length) {
    if (line.charCodeAt(at) === COLON) {
      params.push(line.slice(at + 1));
      break;
    }
    const sp = line.indexOf(" ", at);
    if (sp < 0) {
      params.push(line.slice(at));
      break;
    }
    params.push(line.slice(at, sp));
    at = skipSpaces(line, sp + 1);
  }
  return params;
}

/**
 * Lines read by parseMessage in this process (a test counts them: each upstream line once).
 *
 * @internal test seam
 */
export const parsed = { lines: 0 };

/** Reads one line (without CR LF); undefined when it has no command or its tags are too long. */
export function parseMessage(input: string): IrcMessage | undefined {
  parsed.lines++;
  const head = readHead(input);
  if (!head) return undefined;
  const { line, tagsEnd, source } = head;
  return {
    tags: parseTags(tagsEnd ? line.slice(1, tagsEnd) : ""),
    prefix: source < 0 ? "" : line.slice(source, head.sourceEnd),
    command: line.slice(head.command, head.commandEnd).toUpperCase(),
    params: paramsOf(head),
  };
}

const UNESCAPE: Record<string, string> = { ":": ";", s: " ", "\\": "\\", r: "\r", n: "\n" };

/** A tag value as sent: `\:` is `;`, `\s` a space, an unknown escape the character itself. */
function unescapeTag(v: string): string {
  if (!v.includes("\\")) return v;
  return v.replace(/\\(.?)/g, (_, c: string) => UNESCAPE[c] ?? c);
}

/** A tag value as it must be sent. */
function escapeTag(v: string): string {
  return v.replace(
    /[\\; \r\n]/g,
    (c) => c === "\\" ? "\\\\" : c === ";" ? "\\:" : c === " " ? "\\s" : c === "\r" ? "\\r" : "\\n",
  );
}

/** The tags of a line as written (without `@`), read; a tag without a value is "". */
function parseTags(raw: string): Map<string, string> {
  const tags = new Map<string, string>();
  if (!raw) return tags;
  for (const pair of raw.split(";")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    if (eq < 0) tags.set(pair, "");
    else tags.set(pair.slice(0, eq), unescapeTag(pair.slice(eq + 1)));
  }
  return tags;
}

/**
 * The `@tags ` part of a line ("" without tags). Values are escaped; a tag whose name could end
 * the tag or the line (a client's, relayed) is left out rather than written.
 */
export function tagString(tags: ReadonlyMap<string, string>): string {
  if (!tags.size) return "";
  const parts: string[] = [];
  for (const [k, v] of tags) {
    if (TAG_KEY.test(k)) parts.push(v === "" ? k : `${k}=${escapeTag(v)}`);
  }
  return parts.length ? `@${parts.join(";")} ` : "";
}

/** A source's parts: a person's nick, user and host, or a server's name as `host`. */
interface Source {
  nick: string;
  user: string;
  host: string;
}

/**
 * The parts of a source (`nick!user@host`, `nick@host`, `nick`, or a server's name): a name with
 * a dot and neither `!` nor `@` is a server, whose nick is empty.
 */
export function sourceOf(prefix: string): Source {
  const bang = prefix.indexOf("!");
  const at = prefix.indexOf("@", bang < 0 ? 0 : bang);
  if (bang >= 0) {
    return {
      nick: prefix.slice(0, bang),
      user: at < 0 ? prefix.slice(bang + 1) : prefix.slice(bang + 1, at),
      host: at < 0 ? "" : prefix.slice(at + 1),
    };
  }
  if (at >= 0) return { nick: prefix.slice(0, at), user: "", host: prefix.slice(at + 1) };
  return prefix.includes(".")
    ? { nick: "", user: "", host: prefix }
    : { nick: prefix, user: "", host: "" };
}

/** The nick of a source (`nick!user@host` -> `nick`). */
export function nickOf(prefix: string): string {
  const bang = prefix.indexOf("!");
  return bang < 0 ? prefix : prefix.slice(0, bang);
}

// --- The one writer ---

/** A line built by `ircLine` (or checked by `quotedLine`): the only kind the send queue takes. */
export type IrcLine = string & { readonly __ircLine: true };

/** A command and parameters that cannot make a valid line; the message says why, in plain words. */
export class LineError extends Error {
  override name = "LineError";
}

/** A named command (`PRIVMSG`) or a numeric (`001`). */
const COMMAND = /^(?:[A-Za-z]+|[0-9]{3})$/;
const BREAKING = /[\r\n\0]/;
/** A source: one word, nothing that breaks a line. */
const SOURCE = /^[^\s\0]+$/;
/** A tag's name: anything but what would end it or the line (a client's odd name passes on). */
const TAG_KEY = /^[^\s\0;=]+$/;

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

/** A line to write: tags and a source are optional. */
interface OutgoingMessage {
  tags?: ReadonlyMap<string, string>;
  prefix?: string;
  command: string;
  params: readonly string[];
}

/** Writes a whole line (without CR LF): escaped tags, the source, then `ircLine`'s rules. */
export function formatMessage(m: OutgoingMessage): IrcLine {
  const body = ircLine(m.command, ...m.params);
  let source = "";
  if (m.prefix) {
    if (!SOURCE.test(m.prefix)) throw new LineError("A source must be one word.");
    source = `:${m.prefix} `;
  }
  return `${m.tags ? tagString(m.tags) : ""}${source}${body}` as IrcLine;
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
    if (sp < 0 || sp > MAX_CLIENT_TAG_BYTES) {
      throw new LineError("Tags must be followed by a command.");
    }
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
