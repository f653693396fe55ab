/** A client's target word as a stored conversation, and how its lines are addressed. */
import { ircLower, isChannel } from "../../lib/casefold.ts";
import type { ConversationRecord } from "../../store/conversations.ts";
import type { LineTarget } from "./lines.ts";
import type { HistoryParts, HistoryScope } from "./mod.ts";

/** The connection's conversation a target names (conversation ids are folded as rfc1459). */
export function conversationOf(
  parts: HistoryParts,
  scope: HistoryScope,
  target: string,
): Promise<ConversationRecord | undefined> {
  return parts.store.conversations.get(scope.connection.id, ircLower(target));
}

/** How the lines of `conv` are addressed for this client. */
export function lineTarget(conv: ConversationRecord, scope: HistoryScope): LineTarget {
  return {
    name: conv.name || conv.conversationId,
    conversationId: conv.conversationId,
    isChannel: isChannel(conv.conversationId),
    nick: scope.nick,
    fold: (n) => ircLower(n),
  };
}
