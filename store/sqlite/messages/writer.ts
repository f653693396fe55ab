/**
 * The batched writer: appended messages wait in memory and are committed one transaction per
 * write window, with their ids, unread counts and the indexer's finished deletions.
 */
import type { DatabaseSync } from "node:sqlite";
import { log } from "../../../lib/log.ts";
import { observe } from "../../../lib/metrics.ts";
import { nowMicros } from "../../../lib/time.ts";
import type { Checkpointer } from "../checkpointer.ts";
import type { SearchIndexer } from "../search_index.ts";
import { type Appended, type NewMessage } from "../../message_types.ts";
import { TYPE_CODE } from "../../../protocol/messages.ts";
import { timestamps } from "./timestamps.ts";
import { type UnreadBatch, unreadCounts } from "./unread.ts";
import { checkpointPacing } from "./pacing.ts";
import { capText } from "../../text.ts";

/**
 * How long the writer gathers messages before committing them in one transaction. Each commit
 * also makes work for the search indexer, so committing every message of a quiet channel on
 * its own makes index segment merges frequent; a crash loses at most this much.
 */
const WRITE_WINDOW_MS = 10;
/** How soon a batch the busy database refused is tried again. */
const BUSY_RETRY_MS = 100;
/** Most messages the write window commits per turn of the event loop (see flushSoon). */
const WINDOW_BATCH = 1000;

/** Rows per multi-row INSERT. */
const ROWS_PER_INSERT = 16;

interface Pending {
  conversation: number;
  userId: number;
  ts: number;
  type: number;
  highlight: number;
  sender: string;
  text: string;
  serverMsgid: string | null;
  replyTo: string | null;
  fields: string | null;
}

/** The writer of `messages`; it tells `indexer` how far messages are committed. */
export function messageWriter(
  db: DatabaseSync,
  indexer: SearchIndexer,
  checkpointer: Checkpointer,
) {
  const INSERT =
    "INSERT INTO messages (id, conversation, user_id, ts, type, highlight, sender, text, " +
    "server_msgid, reply_to, fields) VALUES ";
  const ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  const insert = db.prepare(INSERT + ROW);
  // Rows in one statement: a call into SQLite per row was half the cost of an insert (1.9 against
  // 1.0 µs a row at 16 rows a statement, measured with node:sqlite in Deno 2.9.6).
  const insertMany = db.prepare(INSERT + Array(ROWS_PER_INSERT).fill(ROW).join(", "));
  const values: (number | string | null)[] = [];
  const saveNextId = db.prepare("UPDATE message_ids SET next = ?");
  const readNextId = db.prepare("SELECT next FROM message_ids");
  const trimDeletions = db.prepare("DELETE FROM message_deletions WHERE seq <= ?");
  const uniqueTs = timestamps(db, () => flushNow());
  const unread = unreadCounts(db);
  const pacing = checkpointPacing(checkpointer, () => {
    if (pending.length) timer ??= setTimeout(flushSoon, 0);
  });

  let pending: Pending[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Ids are assigned here and never reused (see migration 005), so the indexer can work from
  // "everything after id N".
  let nextId = (readNextId.get() as { next: number }).next;
  let trimmed = 0;

  function writeBatch(batch: Pending[], unreadAdded: UnreadBatch) {
    let first = nextId;
    /** A row's values, in ROW's order, with the next id. */
    const bind = (p: Pending) => {
      values.push(nextId++, p.conversation, p.userId, p.ts, p.type, p.highlight, p.sender, p.text);
      values.push(p.serverMsgid, p.replyTo, p.fields);
    };
    const run = (p: Pending) => {
      values.length = 0;
      bind(p);
      insert.run(...values);
    };
    // The indexer's finished part of the deletion log goes in the same transaction.
    const trimTo = indexer.deletedUpTo();
    let together = false;
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      // Another connection held the write lock past the busy timeout (a checkpoint starved of
      // CPU on a loaded machine): the batch goes back to be written next time, nothing is lost.
      log.warn("message batch waits: the database is busy", { error: String(err) });
      return false;
    }
    try {
      // Re-read inside the transaction: another process on the same file must not get the
      // same ids (one Parley per data folder is the rule; this keeps a mistake harmless).
      nextId = first = Math.max(nextId, (readNextId.get() as { next: number }).next);
      let i = 0;
      for (; i + ROWS_PER_INSERT <= batch.length; i += ROWS_PER_INSERT) {
        values.length = 0;
        for (let j = i; j < i + ROWS_PER_INSERT; j++) bind(batch[j]);
        insertMany.run(...values);
      }
      for (; i < batch.length; i++) run(batch[i]);
      saveNextId.run(nextId);
      unread.save(unreadAdded);
      if (trimTo > trimmed) trimDeletions.run(trimTo);
      db.exec("COMMIT");
      trimmed = Math.max(trimmed, trimTo);
      together = true;
    } catch (err) {
      db.exec("ROLLBACK");
      nextId = first;
      log.warn("message batch failed; writing one by one", { error: String(err) });
    }
    if (!together) {
      // One bad row (its conversation deleted meanwhile) must not lose the others.
      for (const p of batch) {
        try {
          run(p);
        } catch (err) {
          log.warn("message dropped", { conversation: p.conversation, error: String(err) });
        }
      }
      saveNextId.run(nextId);
      try {
        unread.save(unreadAdded);
      } catch (err) {
        log.warn("unread counts not saved", { error: String(err) });
      }
    }
    indexer.committed(nextId - 1);
    return true;
  }

  /** Commits up to `limit` pending messages (and every pending unread count). */
  function flushNow(limit = Infinity) {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const batch = pending.length > limit ? pending.slice(0, limit) : pending;
    pending = pending.length > limit ? pending.slice(limit) : [];
    const counts = unread.take();
    const started = performance.now();
    if (!writeBatch(batch, counts)) {
      pending = batch.concat(pending);
      unread.restore(counts);
      timer = setTimeout(flushSoon, BUSY_RETRY_MS);
      return;
    }
    observe.storeBatch(batch.length, (performance.now() - started) / 1000);
    pacing.afterCommit();
    if (pending.length) timer = setTimeout(flushSoon, 0);
  }

  /**
   * The write window's flush: it waits while a checkpoint runs (reads flush at once), and commits
   * at most WINDOW_BATCH messages per turn of the event loop, so that a burst held back by a
   * checkpoint does not stop the IRC sockets from being read for tens of milliseconds.
   */
  function flushSoon() {
    timer = undefined;
    if (!pacing.holding) flushNow(WINDOW_BATCH);
  }

  return {
    /** Queues a message; returns its final timestamp (and unread count when it counts). */
    append(msg: NewMessage): Appended {
      const ts = uniqueTs(msg.conversation, msg.ts ?? nowMicros());
      pending.push({
        conversation: msg.conversation,
        userId: msg.userId,
        ts,
        type: TYPE_CODE[msg.type] ?? 0,
        highlight: msg.highlight ? 1 : 0,
        sender: msg.from.slice(0, 100),
        text: capText(msg.text),
        serverMsgid: msg.serverMsgid ?? null,
        replyTo: msg.replyTo ?? null,
        fields: msg.fields ?? null,
      });
      // One transaction per write window, however many messages arrived in it.
      timer ??= setTimeout(flushSoon, WRITE_WINDOW_MS);
      return msg.unread ? { ts, unread: unread.add(msg.conversation) } : { ts };
    },
    /** Commits what is pending now (unread counts included), as every read does first. */
    commit: () => flushNow(),
    /**
     * Whether a message of `conversation` waits to be committed. A scan of the batch (at most a
     * few thousand rows) costs microseconds; a commit it spares costs a transaction.
     */
    pendingFor: (conversation: number) => pending.some((p) => p.conversation === conversation),
    /** Unread messages of a conversation counted and not yet committed. */
    unreadPending: (conversation: number) => unread.pending(conversation),
    /** Waits out a checkpoint under way, then commits what is pending. */
    async flush() {
      await pacing.idle();
      flushNow();
    },
    /** Commits what is pending and waits out a checkpoint under way (the store's close). */
    async close() {
      flushNow();
      await pacing.idle();
    },
    /** The id of the last message handed to SQLite. */
    lastId: () => nextId - 1,
    /** The checkpoint pacing, which the other writers of `messages` (retention) keep too. */
    pacing,
  };
}
