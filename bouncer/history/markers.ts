/**
 * Read markers for attached clients (IRCv3 draft/read-marker): MARKREAD moves a conversation's
 * marker in Parley (its unread count, its notifications, the web client's line) and never back;
 * a move is published as a `read` event, so every attached client and every browser hears of it.
 */
import { ircLine } from "../../irc/protocol/message.ts";
import { formatMicros, parseMicros } from "../../protocol/time.ts";
import type { ConversationRecord } from "../../store/conversations.ts";
import { ircTime } from "./lines.ts";
import type { HistoryLines, HistoryParts, HistoryScope } from "./mod.ts";
import { echo, isTargetWord, parseTimestamp } from "./refs.ts";
import { conversationOf, lineTarget } from "./target.ts";

/** `MARKREAD target timestamp=...` for a marker in microseconds; `MARKREAD target *` when 0. */
function line(target: string, lastRead: number): string {
  return ircLine("MARKREAD", target, lastRead > 0 ? `timestamp=${ircTime(lastRead)}` : "*");
}

/** The line of a `read` event's marker (`ts` as events write times). */
export function markerLine(target: string, ts: string): string {
  return line(echo(target), parseMicros(ts) ?? 0);
}

const nameOf = (conv: ConversationRecord, scope: HistoryScope) =>
  echo(lineTarget(conv, scope).name);

/** The marker line of a conversation, for the attach burst; undefined when there is none. */
export async function markerOf(
  parts: HistoryParts,
  scope: HistoryScope,
  target: string,
): Promise<string | undefined> {
  if (!isTargetWord(target)) return undefined;
  const conv = await conversationOf(parts, scope, target);
  return conv && line(nameOf(conv, scope), conv.lastRead);
}

/** Answers `MARKREAD target [timestamp=...]`. */
export async function markRead(
  parts: HistoryParts,
  scope: HistoryScope,
  params: string[],
): Promise<HistoryLines> {
  const [target, stamp] = params;
  if (target === undefined) return ["FAIL MARKREAD NEED_MORE_PARAMS :Missing parameters"];
  if (!isTargetWord(target) || params.length > 2) {
    return [`FAIL MARKREAD INVALID_PARAMS ${echo(target)} :Invalid parameters`];
  }
  const conv = await conversationOf(parts, scope, target);
  if (stamp === undefined) {
    return [conv ? line(nameOf(conv, scope), conv.lastRead) : line(echo(target), 0)];
  }
  const ms = stamp.startsWith("timestamp=") ? parseTimestamp(stamp.slice(10)) : undefined;
  if (ms === undefined) return [`FAIL MARKREAD INVALID_PARAMS ${echo(target)} :Invalid timestamp`];
  if (!conv) return [`FAIL MARKREAD INVALID_PARAMS ${echo(target)} :No such conversation`];
  // The whole millisecond of the line it names is read.
  const wanted = ms * 1000 + 999;
  let marker;
  try {
    marker = await parts.history.markRead(conv.id, wanted, scope.nick);
  } catch {
    return [`FAIL MARKREAD INTERNAL_ERROR ${echo(target)} :The read marker could not be set`];
  }
  if (!marker) return [`FAIL MARKREAD INVALID_PARAMS ${echo(target)} :No such conversation`];
  if (marker.lastRead === wanted && wanted > conv.lastRead) {
    const where = {
      connection_id: scope.connection.connectionId,
      conversation_id: conv.conversationId,
    };
    parts.bus.publish(scope.userId, { event: "unread", ...where, unread: marker.unread });
    parts.bus.publish(scope.userId, { event: "read", ...where, ts: formatMicros(marker.lastRead) });
  }
  return [line(nameOf(conv, scope), marker.lastRead)];
}
