/**
 * IRC lines between Parley and an attached client: read into tags, prefix, command and
 * parameters, and written back. Command and parameters are written by the engine's one writer
 * (irc/engine/line.ts), so a line Parley makes here obeys the same rules as one it sends upstream.
 */
import { type IrcLine, ircLine } from "../irc/engine/line.ts";

/** The most bytes of a line's tags (IRCv3 message-tags), `@` and the space after included. */
export const MAX_TAG_BYTES = 8191;
/** The most bytes of the rest of a line, CR LF included (RFC 1459). */
export const MAX_BODY_BYTES = 512;

/** One line, read. Tag values are unescaped; a tag without a value is "". */
export interface Message {
  tags: Map<string, string>;
  /** The source without its `:` ("" when none). */
  prefix: string;
  /** Upper-cased. */
  command: string;
  params: string[];
}

const UNESCAPE: Record<string, string> = { ":": ";", s: " ", "\\": "\\", r: "\r", n: "\n" };

function unescapeTag(v: string): string {
  return v.replace(/\\(.?)/g, (_, c: string) => UNESCAPE[c] ?? c);
}

function escapeTag(v: string): string {
  return v.replace(
    /[\\; \r\n]/g,
    (c) => c === "\\" ? "\\\\" : c === ";" ? "\\:" : c === " " ? "\\s" : c === "\r" ? "\\r" : "\\n",
  );
}

/** Lines read by parseLine in this process (a test counts them: each upstream line once). */
export const parsed = { lines: 0 };

/** Reads one line (without CR LF); undefined when it has no command. */
export function parseLine(raw: string): Message | undefined {
  parsed.lines++;
  let rest = raw;
  const tags = new Map<string, string>();
  if (rest.startsWith("@")) {
    const sp = rest.indexOf(" ");
    if (sp < 0) return undefined;
    for (const pair of rest.slice(1, sp).split(";")) {
      if (!pair) continue;
      const eq = pair.indexOf("=");
      if (eq < 0) tags.set(pair, "");
      else tags.set(pair.slice(0, eq), unescapeTag(pair.slice(eq + 1)));
    }
    rest = rest.slice(sp + 1).replace(/^ +/, "");
  }
  let prefix = "";
  if (rest.startsWith(":")) {
    const sp = rest.indexOf(" ");
    if (sp < 0) return undefined;
    prefix = rest.slice(1, sp);
    rest = rest.slice(sp + 1).replace(/^ +/, "");
  }
  const params: string[] = [];
  while (rest.length) {
    if (rest.startsWith(":")) {
      params.push(rest.slice(1));
      break;
    }
    const sp = rest.indexOf(" ");
    if (sp < 0) {
      params.push(rest);
      break;
    }
    params.push(rest.slice(0, sp));
    rest = rest.slice(sp + 1).replace(/^ +/, "");
  }
  const command = params.shift()?.toUpperCase();
  if (!command) return undefined;
  return { tags, prefix, command, params };
}

/** The `@tags ` part of a line ("" without tags). */
export function tagString(tags: Map<string, string>): string {
  if (!tags.size) return "";
  const parts = [...tags].map(([k, v]) => v === "" ? k : `${k}=${escapeTag(v)}`);
  return `@${parts.join(";")} `;
}

/** Writes a line Parley makes: tags, source, then command and parameters by the one writer. */
export function formatLine(
  command: string,
  params: string[],
  opts: { prefix?: string; tags?: Map<string, string> } = {},
): string {
  const body: IrcLine = ircLine(command, ...params);
  const source = opts.prefix ? `:${opts.prefix} ` : "";
  return `${opts.tags ? tagString(opts.tags) : ""}${source}${body}`;
}

/** Writes a line read from somewhere else again, with other tags: its body stays as it came. */
export function withTags(raw: string, tags: Map<string, string>): string {
  const body = raw.startsWith("@") ? raw.slice(raw.indexOf(" ") + 1).replace(/^ +/, "") : raw;
  return tagString(tags) + body;
}

/** The nick of a source (`nick!user@host` -> `nick`). */
export function nickOf(prefix: string): string {
  const bang = prefix.indexOf("!");
  return bang < 0 ? prefix : prefix.slice(0, bang);
}
