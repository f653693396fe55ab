/**
 * The lean path of an IRC burst: a person's PRIVMSG, NOTICE or ACTION to one target, and a
 * person's JOIN, read straight from the line. irc-framework's parser, middleware and event objects were about a third
 * of a chat line's cost (docs/performance.md, "IRC bursts"). Anything unusual (a server prefix,
 * a CTCP other than ACTION, a batch, odd spacing) is not parsed here and goes to irc-framework,
 * so this only has to be right for the lines it takes.
 */

/** A chat line as irc/chat/inbound/ records it. */
export interface ChatLine {
  nick: string;
  /** The sender's ident and host, from the prefix (`nick!user@host`); "" when it has none. */
  user: string;
  host: string;
  kind: "privmsg" | "notice" | "action";
  target: string;
  /** The text (an ACTION's without its CTCP wrapping). */
  text: string;
  /** The `@time` tag in ms since the epoch, as irc-framework reads it; undefined without one. */
  time?: number;
  /** The server's `msgid` tag. */
  msgid?: string;
}

/** The `time` tag's value in ms: ISO 8601, or ZNC's Unix seconds (irc-framework's rules). */
function tagTime(value: string): number | undefined {
  const ms = Date.parse(value);
  if (ms) return ms;
  return /^[0-9.]+$/.test(value) ? parseInt(value, 10) * 1000 : undefined;
}

/** What every lean line starts with: the `@time` tag, the person's prefix and the command. */
interface Head {
  line: string;
  nick: string;
  user: string;
  host: string;
  command: string;
  /** Where the parameters start. */
  params: number;
  time?: number;
  msgid?: string;
}

/** `@tags :nick!user@host COMMAND ` read; undefined for a batch's line or a server's prefix. */
function headOf(input: string): Head | undefined {
  const line = input.charCodeAt(input.length - 1) === 13 ? input.slice(0, -1) : input;
  let at = 0;
  let time: number | undefined;
  let msgid: string | undefined;
  if (line.charCodeAt(0) === 64 /* @ */) {
    const end = line.indexOf(" ");
    if (end < 0) return undefined;
    for (const tag of line.slice(1, end).split(";")) {
      const eq = tag.indexOf("=");
      const key = eq < 0 ? tag : tag.slice(0, eq);
      // irc-framework gathers a batch's lines and hands them over when it ends.
      // A reply (and any other client tag) is irc-framework's, which reads every tag.
      if (key === "batch" || key.startsWith("+")) return undefined;
      if (key === "msgid" && eq > 0) {
        msgid = tag.slice(eq + 1);
        if (msgid.includes("\\")) return undefined; // escaped: irc-framework unescapes
      }
      if (key === "time" && eq > 0) time = tagTime(tag.slice(eq + 1));
    }
    at = end + 1;
  }
  if (line.charCodeAt(at) !== 58 /* : */) return undefined;
  const prefixEnd = line.indexOf(" ", at);
  if (prefixEnd < 0) return undefined;
  const bang = line.indexOf("!", at);
  // No "!": a server (or a bare nick), which irc-framework tells apart.
  if (bang < 0 || bang > prefixEnd || bang === at + 1) return undefined;
  const nick = line.slice(at + 1, bang);
  const prefix = line.slice(bang + 1, prefixEnd);
  const atSign = prefix.indexOf("@");
  const user = atSign < 0 ? prefix : prefix.slice(0, atSign);
  const host = atSign < 0 ? "" : prefix.slice(atSign + 1);
  const commandEnd = line.indexOf(" ", prefixEnd + 1);
  if (commandEnd < 0) return undefined;
  const command = line.slice(prefixEnd + 1, commandEnd);
  return { line, nick, user, host, command, params: commandEnd + 1, time, msgid };
}

/**
 * Parses `@tags :nick!user@host PRIVMSG target :text` (tags optional); undefined for any other
 * line, which irc-framework then handles.
 */
export function parseChatLine(input: string): ChatLine | undefined {
  const head = headOf(input);
  return head && chatOf(head);
}

function chatOf(head: Head): ChatLine | undefined {
  if (head.command !== "PRIVMSG" && head.command !== "NOTICE") return undefined;
  const { line, nick, user, host, command, params, time, msgid } = head;
  const targetEnd = line.indexOf(" ", params);
  if (targetEnd <= params || line.charCodeAt(targetEnd + 1) !== 58) return undefined;
  const target = line.slice(params, targetEnd);
  const text = line.slice(targetEnd + 2);
  if (text.charCodeAt(0) !== 1) {
    const kind = command === "NOTICE" ? "notice" : "privmsg";
    return { nick, user, host, kind, target, text, time, msgid };
  }
  // CTCP: only a PRIVMSG's ACTION is a chat line; requests and replies go to irc-framework.
  if (command !== "PRIVMSG" || !text.startsWith("\x01ACTION ") || !text.endsWith("\x01")) {
    return undefined;
  }
  return { nick, user, host, kind: "action", target, text: text.slice(8, -1), time, msgid };
}

/** Someone's join, as irc/chat/inbound/ records it. */
export interface JoinLine {
  nick: string;
  user: string;
  host: string;
  channel: string;
  time?: number;
}

/**
 * Parses `@tags :nick!user@host JOIN #channel` (`:#channel` too, and extended-join's account and
 * real name after it, which are not kept); undefined for any other line. In channels of hundreds
 * the joins are most of what a connection reads while everyone connects.
 */
export function parseJoinLine(input: string): JoinLine | undefined {
  const head = headOf(input);
  return head && joinOf(head);
}

function joinOf(head: Head): JoinLine | undefined {
  if (head.command !== "JOIN") return undefined;
  const { line, nick, user, host, params, time } = head;
  const from = line.charCodeAt(params) === 58 /* : */ ? params + 1 : params;
  const end = line.indexOf(" ", from);
  const channel = end < 0 ? line.slice(from) : line.slice(from, end);
  // A list of channels (`JOIN #a,#b`) or none: irc-framework's.
  if (!channel || channel.includes(",")) return undefined;
  return { nick, user, host, channel, time };
}

/** Whichever of the two a line is (its head read once): a chat line, or a join. */
export function parseLeanLine(input: string): ChatLine | (JoinLine & { kind: "join" }) | undefined {
  const head = headOf(input);
  if (!head) return undefined;
  if (head.command !== "JOIN") return chatOf(head);
  const join = joinOf(head);
  return join && { ...join, kind: "join" };
}
