/**
 * Stored lines as IRC lines for an attached client: messages as PRIVMSG and NOTICE, channel
 * events as the JOIN, PART, KICK, QUIT, NICK, TOPIC and MODE they were (made from the row's
 * fields as their `LINE_KINDS` row's `irc` says, by one builder with no code per kind; never read
 * back from a sentence), reactions as the TAGMSG they came as, each from its sender's whole source
 * when it was kept (`nick!user@host`), with its `time` (milliseconds) and `msgid` tags, a reply's
 * `+draft/reply` naming the line's own msgid, inside a batch when the client takes them.
 */
import { actionWrap } from "../../irc/protocol/ctcp.ts";
import { ircLine, tagString } from "../../irc/protocol/message.ts";
import { msgidOf } from "../../lib/msgid.ts";
import type { HistoryLine } from "../../store/history_types.ts";
import { CHANNEL, LINE_KINDS, type LineKind } from "../../protocol/events.ts";

/** Where a conversation's lines go: its name, whether it is a channel, and the user's nick. */
export interface LineTarget {
  /** The conversation's name as IRC spells it. */
  name: string;
  /** Casefolded, to tell the user's own lines in a private conversation. */
  conversationId: string;
  isChannel: boolean;
  /** The user's nick now: a private message from the other person was sent to it. */
  nick: string;
  /** Casefolds a nick as conversation ids are. */
  fold(name: string): string;
}

/** Who says a gap: the bouncer's server name, as in its numerics. */
export const GAP_SOURCE = "parley";

/** A millisecond timestamp as IRCv3 `server-time` and read markers write it. */
export function ircTime(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString();
}

/** A stored text as one parameter: what could break a line becomes a space. */
const oneLine = (text: string) => text.replace(/[\r\n\0]/g, " ");
/** A stored name as one word of a line. */
const word = (s: string) => s.replace(/[\s\0:,]/g, "").slice(0, 200) || "*";

/** The most words a split field gives (a mode and its arguments): with the channel, within 15. */
const MAX_WORDS = 13;

/**
 * The command and parameters of a channel event, from its stored fields as its `LINE_KINDS` row's
 * `irc` says; undefined for a kind that has no IRC line, a row lacking a word its line needs, or a
 * row kept as text (its sentence could not be read when events became data), which no IRC command
 * can carry.
 */
function eventLine(l: HistoryLine, t: LineTarget): string[] | undefined {
  const kind: LineKind = LINE_KINDS[l.type];
  if (!l.fields || !("irc" in kind) || !kind.irc) return undefined;
  const fields: Partial<Record<string, string>> = l.fields;
  const words = [kind.irc.command];
  for (const p of kind.irc.params as readonly (string | IrcLast)[]) {
    if (p === CHANNEL) words.push(word(t.name));
    else if (typeof p === "string") {
      if (!fields[p]) return undefined;
      words.push(word(fields[p]));
    } else if ("words" in p) {
      const split = (fields[p.words] ?? "").split(" ").filter(Boolean).map(word);
      if (!split.length) return undefined;
      words.push(...split.slice(0, MAX_WORDS));
    } else if (fields[p.text] !== undefined || !p.optional) {
      words.push(oneLine(fields[p.text] ?? ""));
    }
  }
  return words;
}

/** A last parameter of an `irc` row, whatever its kind's fields. */
type IrcLast = { text: string; optional?: true } | { words: string };

/**
 * The line of one stored line, tagged; undefined for one that cannot be told as IRC. `replies`
 * gives the own msgid of a line the server named by its msgid (repliesOf): a reply names that.
 */
export function historyLine(
  l: HistoryLine,
  t: LineTarget,
  batch?: string,
  replies?: ReadonlyMap<string, string>,
): string | undefined {
  let source = word(l.from);
  const host = l.fromHost?.replace(/[\s\0]/g, "").slice(0, 200);
  if (host && source !== "*") source += `!${host}`;
  let words: string[] | undefined;
  const tags = new Map<string, string>();
  if (batch) tags.set("batch", batch);
  tags.set("time", ircTime(l.ts));
  tags.set("msgid", msgidOf(l.conversation, l.ts));
  if (l.type === "gap") {
    // A stretch Parley was not connected: said by Parley itself, in the conversation.
    source = GAP_SOURCE;
    words = ["NOTICE", word(t.isChannel ? t.name : t.nick), oneLine(l.text)];
  } else if (
    l.type === "private" || l.type === "action" || l.type === "notice" || l.type === "error"
  ) {
    const command = l.type === "notice" || l.type === "error" ? "NOTICE" : "PRIVMSG";
    const text = l.type === "action" ? actionWrap(oneLine(l.text)) : oneLine(l.text);
    words = [command, word(to(l, t)), text];
  } else if (l.type === "react") {
    // Said as it came: tags alone, to the line it reacts to.
    if (!l.replyTo || !l.text) return undefined;
    tags.set("+draft/react", l.text);
    words = ["TAGMSG", word(to(l, t))];
  } else {
    words = eventLine(l, t);
  }
  if (!words) return undefined;
  if (l.replyTo) tags.set("+draft/reply", replies?.get(l.replyTo) ?? l.replyTo);
  const [command, ...params] = words;
  return `${tagString(tags)}:${source} ${ircLine(command, ...params)}`;
}

/**
 * Where a person's line went: a channel's to the channel; in a private conversation the other
 * person's to the user's nick, the user's own to the other person. Told by the user's nick: the
 * conversation follows the other person's nick changes, so their lines from before one (as
 * bobby, now bob) are theirs too.
 */
function to(l: HistoryLine, t: LineTarget): string {
  const own = t.fold(l.from) === t.fold(t.nick) && t.fold(l.from) !== t.conversationId;
  return t.isChannel || own ? t.name : t.nick;
}

/**
 * `body` (lines made with the batch's id) inside `BATCH +id type params` and `BATCH -id`; without
 * batches (`batch` false), the lines alone.
 */
export function inBatch(
  batch: string | undefined,
  type: string,
  params: string[],
  body: string[],
): string[] {
  if (!batch) return body;
  return [`${ircLine("BATCH", `+${batch}`, type, ...params)}`, ...body, `BATCH -${batch}`];
}
