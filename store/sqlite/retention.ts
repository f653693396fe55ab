/**
 * Retention on SQLite: the oldest messages go a small batch at a time, through the `ts` index
 * (migration 022), each batch one short transaction on the main connection. Between batches the
 * batched writer commits as usual, so writes wait at most one batch. A batch keeps the writer's
 * checkpoint pacing (messages/pacing.ts): it never starts while a checkpoint runs (its BEGIN
 * would block the event loop on the checkpoint's lock), and it has the WAL checkpointed once a
 * second as the writer's commits do, so a long prune with no messages coming does not grow the
 * WAL without bound. And it goes no faster than the search indexer removes what it deleted: the
 * indexer's thread also runs the checkpoints, between its steps, and a step of thousands of
 * removals held each checkpoint, and the writer's commits with it, past the writer's limit.
 */
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./db.ts";
import { FIRST_EVENT_CODE } from "../../protocol/messages.ts";
import { type MessageRetention } from "../message_types.ts";

/** What a batch waits for and tells (the writer's pacing, the indexer). */
interface RetentionHooks {
  /** Resolves when no checkpoint is under way. */
  idle(): Promise<void>;
  /**
   * After a batch that deleted rows: the delete trigger logged them for the search indexer,
   * which removes them from `search.db`.
   */
  deleted(): void;
  /** The deletion log's `seq` up to which the indexer has removed rows from `search.db`. */
  removedUpTo(): number;
}

/** Longest a batch waits for the indexer (a worker restarting after a failure, say). */
const INDEXER_WAIT_MS = 5000;

/** The retention capability over `parley.db`. */
export function sqliteRetention(db: DatabaseSync, hooks: RetentionHooks): MessageRetention {
  const remove = db.prepare(
    `DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE ts < ? ORDER BY ts LIMIT ?)
     RETURNING conversation, ts, type`,
  );
  const lastRead = db.prepare("SELECT last_read FROM conversations WHERE id = ?");
  const logged = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM message_deletions");
  /** The log's end after the batch before the last: one batch may be left to the indexer. */
  let waitFor = 0;
  let lastLogged = 0;
  // Unread messages that are gone no longer count; a count never goes below nothing.
  const lower = db.prepare(
    "UPDATE conversations SET unread = max(unread - ?, 0) WHERE id = ? AND unread > 0",
  );
  return {
    async pruneBatch(before, limit) {
      const since = performance.now();
      while (hooks.removedUpTo() < waitFor && performance.now() - since < INDEXER_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await hooks.idle();
      const gone = transaction(db, () => {
        const rows = remove.all(before, limit) as {
          conversation: number;
          ts: number;
          type: number;
        }[];
        const unread = new Map<number, number>();
        const read = new Map<number, number>();
        for (const r of rows) {
          if (r.type >= FIRST_EVENT_CODE) continue; // channel events are never unread
          let mark = read.get(r.conversation);
          if (mark === undefined) {
            const row = lastRead.get(r.conversation) as { last_read: number } | undefined;
            read.set(r.conversation, mark = row?.last_read ?? Infinity);
          }
          if (r.ts > mark) unread.set(r.conversation, (unread.get(r.conversation) ?? 0) + 1);
        }
        for (const [conversation, n] of unread) lower.run(n, conversation);
        waitFor = lastLogged;
        lastLogged = (logged.get() as { seq: number }).seq;
        return rows.length;
      });
      if (gone) hooks.deleted();
      return gone;
    },
  };
}
