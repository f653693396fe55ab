/** Unread counts kept by the writer: counted in memory, saved in the writer's transaction. */
import type { DatabaseSync } from "node:sqlite";

/** One conversation's count: the stored count when its first unread came, and how many since. */
interface Window {
  base: number;
  added: number;
}

/** What `take` hands the writer to save. */
export type UnreadBatch = Map<number, Window>;

/**
 * Unread messages not yet committed, per conversation (the stored count is read once per
 * conversation per batch, not per message). Reading one conversation adds its pending count to
 * the stored one; listings and mark-as-read commit the writer first. None sees a stale count.
 */
export function unreadCounts(db: DatabaseSync) {
  const unreadOf = db.prepare("SELECT unread FROM conversations WHERE id = ?");
  const addUnread = db.prepare("UPDATE conversations SET unread = unread + ? WHERE id = ?");
  let current: UnreadBatch = new Map();
  return {
    /** Counts one more unread message; returns the conversation's count with it. */
    add(conversation: number): number {
      let u = current.get(conversation);
      if (!u) {
        const row = unreadOf.get(conversation) as { unread: number } | undefined;
        current.set(conversation, u = { base: row?.unread ?? 0, added: 0 });
      }
      return u.base + ++u.added;
    },
    /** Unread messages of `conversation` counted and not yet committed. */
    pending(conversation: number): number {
      return current.get(conversation)?.added ?? 0;
    },
    /** The counts so far, for the next batch; counting starts over. */
    take(): UnreadBatch {
      const out = current;
      current = new Map();
      return out;
    },
    /** Gives back the counts of a batch that could not be written, for the next one. */
    restore(batch: UnreadBatch) {
      for (const [conversation, w] of batch) {
        const u = current.get(conversation);
        // The earlier window's base is the stored count; counting went on from it.
        if (u) current.set(conversation, { base: w.base, added: w.added + u.added });
        else current.set(conversation, w);
      }
    },
    /** Adds a batch's counts (inside the caller's transaction). */
    save(batch: UnreadBatch) {
      for (const [conversation, u] of batch) addUnread.run(u.added, conversation);
    },
  };
}
