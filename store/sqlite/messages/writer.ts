/**
 * The batched writer: appended messages wait in memory and are committed one transaction per
 * write window, with their ids, unread counts and the indexer's finished deletions.
 */
import type { DatabaseSync } from "node:sqlite";
import { diskFailed, rollback } from "../db.ts";
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

/**
 * While the disk is full: how soon the held messages are tried again (a write window's batch of
 * them, the disk refusing it cheaply), and how many are held in memory at most: 100,000 (~40 MB
 * of everyday lines), and 32 Mi characters of texts, senders and fields (a hostile server's
 * padded lines would make 100,000 of them near a gigabyte); past either the oldest go, and the
 * log says how many.
 *
 * @internal test seam
 */
export const HOLD_LIMITS = { retryMs: 5000, held: 100_000, heldChars: 32 * 1024 * 1024 };
/** Most messages the write window commits per turn of the event loop (see flushSoon). */
const WINDOW_BATCH = 1000;

/** Rows per multi-row INSERT. */
const ROWS_PER_INSERT = 16;

/** What a batch's write left: the rows to try again, and why (none: all written). */
interface Written {
  left: Pending[];
  why?: "busy" | "full";
  error?: unknown;
}

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
  senderHost: string | null;
}

/** What a held message keeps in memory, in characters. */
function charsOf(p: Pending): number {
  return p.text.length + p.sender.length + (p.fields?.length ?? 0) + (p.serverMsgid?.length ?? 0) +
    (p.senderHost?.length ?? 0);
}

/** The writer of `messages`; it tells `indexer` how far messages are committed. */
export function messageWriter(
  db: DatabaseSync,
  indexer: SearchIndexer,
  checkpointer: Checkpointer,
) {
  const INSERT =
    "INSERT INTO messages (id, conversation, user_id, ts, type, highlight, sender, text, " +
    "server_msgid, reply_to, fields, sender_host) VALUES ";
  const ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
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
  // "everything after id N". Never below the stored ids: a batch written one by one after a
  // failed one saves `next` outside a transaction, and a full disk can refuse that save (while
  // running, `nextId` itself is right; only a start after that needs the rows' ids).
  let nextId = (db.prepare(
    "SELECT max(next, coalesce((SELECT max(id) FROM messages), 0) + 1) AS next FROM message_ids",
  ).get() as { next: number }).next;
  let trimmed = 0;
  /** Since when the disk has refused the messages (0: it takes them), and how many went since. */
  let fullSince = 0;
  let dropped = 0;
  let droppedTold = 0;
  /** While the disk is full, when the held messages are tried again. */
  let retryAt = 0;
  /** Messages and characters appended since the held ones were last bounded. */
  let heldSinceDrop = 0;
  let heldCharsSinceDrop = 0;

  /** The disk refused: the messages stay in memory, within HOLD_LIMITS. */
  function hold(error: unknown) {
    if (!fullSince) {
      fullSince = performance.now();
      log.error("the disk is full: messages are held in memory until it has room", {
        held: pending.length,
        error: String(error),
      });
    }
    dropHeld();
    if (dropped > droppedTold) {
      log.error("held messages dropped: the disk stayed full", { dropped });
      droppedTold = dropped;
    }
    retryAt = performance.now() + HOLD_LIMITS.retryMs;
    timer = setTimeout(flushSoon, HOLD_LIMITS.retryMs);
  }

  /** Past HOLD_LIMITS (in messages or characters), the oldest held messages go. */
  function dropHeld() {
    let n = Math.max(0, pending.length - HOLD_LIMITS.held);
    let chars = 0;
    for (let i = pending.length - 1; i >= n; i--) {
      chars += charsOf(pending[i]);
      if (chars > HOLD_LIMITS.heldChars) {
        n = i + 1;
        break;
      }
    }
    heldSinceDrop = 0;
    heldCharsSinceDrop = 0;
    if (!n) return;
    pending.splice(0, n);
    dropped += n;
  }

  /**
   * Writes `batch` and the unread counts; returns the rows it could not write, to be tried again
   * (all of them when the database was busy or the disk full), and why.
   */
  function writeBatch(batch: Pending[], unreadAdded: UnreadBatch): Written {
    let first = nextId;
    /** A row's values, in ROW's order, with the next id. */
    const bind = (p: Pending) => {
      values.push(nextId++, p.conversation, p.userId, p.ts, p.type, p.highlight, p.sender, p.text);
      values.push(p.serverMsgid, p.replyTo, p.fields, p.senderHost);
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
      return { left: batch, why: "busy" };
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
      rollback(db);
      nextId = first;
      // Nothing is wrong with the rows: they are held and tried again.
      if (diskFailed(err)) return { left: batch, why: "full", error: err };
      log.warn("message batch failed; writing one by one", { error: String(err) });
    }
    if (!together) {
      // One bad row (its conversation deleted meanwhile) must not lose the others.
      for (let i = 0; i < batch.length; i++) {
        try {
          run(batch[i]);
        } catch (err) {
          if (diskFailed(err)) {
            nextId--; // `run` took the id of the row it could not write
            indexer.committed(nextId - 1);
            return { left: batch.slice(i), why: "full", error: err };
          }
          log.warn("message dropped", { conversation: batch[i].conversation, error: String(err) });
        }
      }
      try {
        saveNextId.run(nextId);
        unread.save(unreadAdded);
      } catch (err) {
        // `next` is read back no lower than the stored ids; the counts are lost, not the rows.
        log.warn("unread counts not saved", { error: String(err) });
      }
    }
    indexer.committed(nextId - 1);
    return { left: [] };
  }

  /**
   * Commits up to `limit` pending messages (and every pending unread count). While the disk is
   * full only the retry timer (or the store's close, `force`) tries again: each try writes every
   * held message until the disk refuses, too much for every read that commits first.
   */
  function flushNow(limit = Infinity, force = false) {
    const early = retryAt - performance.now();
    if (fullSince && !force && early > 0) {
      // A timer may fire a fraction of a millisecond before the clock says: one is always set.
      timer ??= setTimeout(flushSoon, Math.ceil(early));
      return;
    }
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const batch = pending.length > limit ? pending.slice(0, limit) : pending;
    pending = pending.length > limit ? pending.slice(limit) : [];
    const counts = unread.take();
    const started = performance.now();
    const written = writeBatch(batch, counts);
    if (written.left.length) {
      pending = written.left.concat(pending);
      // Rows written one by one before the disk refused count with the held ones (the counts
      // are a number per conversation, saved with the next batch that is written).
      unread.restore(counts);
      if (written.why === "busy") timer = setTimeout(flushSoon, BUSY_RETRY_MS);
      else hold(written.error);
      return;
    }
    if (fullSince) {
      log.info("the disk takes messages again", {
        held_s: Math.round((performance.now() - fullSince) / 1000),
        dropped,
      });
      fullSince = 0;
      dropped = droppedTold = 0;
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
      const row: Pending = {
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
        senderHost: msg.senderHost?.slice(0, 200) ?? null,
      };
      pending.push(row);
      if (fullSince) {
        // Bounded in steps: a scan and a splice per message would be slow.
        heldSinceDrop++;
        heldCharsSinceDrop += charsOf(row);
        if (heldSinceDrop > 1000 || heldCharsSinceDrop > HOLD_LIMITS.heldChars / 16) dropHeld();
      }
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
      flushNow(Infinity, true); // once more even while the disk is full: what is held goes now
      if (fullSince) {
        clearTimeout(timer);
        timer = undefined;
        log.error("held messages lost: the disk is still full", { lost: pending.length });
      }
      await pacing.idle();
    },
    /** The id of the last message handed to SQLite. */
    lastId: () => nextId - 1,
    /** The checkpoint pacing, which the other writers of `messages` (retention) keep too. */
    pacing,
  };
}
