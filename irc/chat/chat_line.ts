/**
 * The lean path of an IRC burst: a person's PRIVMSG, NOTICE or ACTION to one target, and a
 * person's JOIN, read straight from the line. irc-framework's parser, middleware and event objects were about a third
 * of a chat line's cost (docs/performance.md, "IRC bursts"). Anything unusual (a server prefix,
 * a CTCP other than ACTION, a batch, odd spacing) is not parsed here and goes to irc-framework,
 * so this only has to be right for the lines it takes. The line's head is read by the one parser
 * (irc/protocol/message.ts), the few parameters wanted here straight from the line.
 */
import { type LineHead, readHead } from "../protocol/message.ts";
import { actionText, isCtcp, isWholeCtcp } from "../protocol/ctcp.ts";

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

/** The head being read: one object for every line (the read is synchronous), not one each. */
const scratch: LineHead = {
  line: "",
  tagsEnd: 0,
  source: -1,
  sourceEnd: -1,
  command: 0,
  commandEnd: 0,
  params: 0,
};

/** `@tags :nick!user@host COMMAND ` read; undefined for a batch's line or a server's prefix. */
function headOf(input: string): Head | undefined {
  const head = readHead(input, scratch);
  if (!head) return undefined;
  const { line, tagsEnd, source, sourceEnd, params } = head;
  let time: number | undefined;
  let msgid: string | undefined;
  if (tagsEnd) {
    for (const tag of line.slice(1, tagsEnd).split(";")) {
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
  }
  if (source < 0) return undefined;
  const bang = line.indexOf("!", source);
  // No "!": a server (or a bare nick), which irc-framework tells apart. Odd spacing between the
  // command and its parameters is irc-framework's too.
  if (bang <= source || bang > sourceEnd || params === line.length) return undefined;
  if (line.charCodeAt(params - 2) === 32) return undefined;
  // sourceParts' rule, read in place: the hot path makes no object for it.
  const atSign = line.indexOf("@", bang);
  const hostAt = atSign < 0 || atSign > sourceEnd ? -1 : atSign;
  const nick = line.slice(source, bang);
  const user = line.slice(bang + 1, hostAt < 0 ? sourceEnd : hostAt);
  const host = hostAt < 0 ? "" : line.slice(hostAt + 1, sourceEnd);
  const command = line.slice(head.command, head.commandEnd);
  return { line, nick, user, host, command, params, time, msgid };
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
  if (!isCtcp(text)) {
    const kind = command === "NOTICE" ? "notice" : "privmsg";
    return { nick, user, host, kind, target, text, time, msgid };
  }
  // CTCP: only a PRIVMSG's whole ACTION is a chat line; requests and replies go to irc-framework.
  const action = command === "PRIVMSG" && isWholeCtcp(text) ? actionText(text) : undefined;
  if (action === undefined) return undefined;
  return { nick, user, host, kind: "action", target, text: action, time, msgid };
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
