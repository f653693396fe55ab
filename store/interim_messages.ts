/**
 * INTERIM, until the history branch's `store/messages.ts` is merged: an in-memory MessageStore
 * so the IRC engine can run. Delete this file and its line in store/mod.ts at the merge.
 */
import { formatMicros, nowMicros } from "../lib/time.ts";
import type { MessageJson, MessagePage, MessageStore, NewMessage } from "./message_types.ts";

/** An in-memory MessageStore (keeps nothing across restarts). */
export function interimMessageStore(): MessageStore {
  const byConversation = new Map<number, (NewMessage & { ts: number })[]>();
  const json = (m: NewMessage & { ts: number }): MessageJson => ({
    from: m.from,
    message: m.text,
    ts: formatMicros(m.ts),
    type: m.type,
  });
  return {
    append(msg) {
      const list = byConversation.get(msg.conversation) ?? [];
      byConversation.set(msg.conversation, list);
      let ts = msg.ts ?? nowMicros();
      const last = list.at(-1)?.ts ?? 0;
      if (ts <= last) ts = last + 1;
      list.push({ ...msg, ts });
      return { ts };
    },
    flush: () => Promise.resolve(),
    history: () => Promise.resolve(undefined),
    search: () => Promise.resolve({ messages: [] }),
    notifications(userId, limit) {
      const all = [...byConversation.values()].flat().filter((m) =>
        m.userId === userId && m.highlight
      );
      const page: MessagePage = { messages: all.slice(-limit).reverse().map(json) };
      return Promise.resolve(page);
    },
    unreadNotifications: () => Promise.resolve(0),
    markNotificationsRead: () => Promise.resolve(),
    clear(conversation) {
      byConversation.delete(conversation);
      return Promise.resolve();
    },
  };
}
