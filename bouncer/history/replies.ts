/**
 * The ids replies name in history. The server names the line a reply or reaction answers by its
 * own msgid; attached clients know every stored line by Parley's (lib/msgid.ts). So a history
 * line's `+draft/reply` is the answered line's own msgid: found among the lines given out with
 * it, else in the store; a line the store does not have keeps the server's id.
 */
import { msgidOf } from "../../lib/msgid.ts";
import type { HistoryLine, MessageHistory } from "../../store/history_types.ts";

/** What of a line names another or is named: where it is, its server's msgid, the one it answers. */
export type Named = Pick<HistoryLine, "conversation" | "ts" | "serverMsgid" | "replyTo">;

/**
 * The own msgid of each server msgid the lines reply or react to; a reply's line is looked for in
 * the reply's conversation.
 */
export async function repliesOf(
  history: MessageHistory,
  lines: readonly Named[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!lines.some((l) => l.replyTo)) return out;
  for (const l of lines) {
    if (l.serverMsgid && !out.has(l.serverMsgid)) {
      out.set(l.serverMsgid, msgidOf(l.conversation, l.ts));
    }
  }
  const missing = new Map<number, Set<string>>();
  for (const l of lines) {
    if (!l.replyTo || out.has(l.replyTo)) continue;
    const ids = missing.get(l.conversation) ?? new Set();
    missing.set(l.conversation, ids.add(l.replyTo));
  }
  for (const [conversation, ids] of missing) {
    for (const [id, ts] of await history.byServerMsgid(conversation, [...ids])) {
      out.set(id, msgidOf(conversation, ts));
    }
  }
  return out;
}
