/**
 * The indexing worker: a thread of its own that keeps `search.db` in step with `messages`.
 *
 * The message writer on the main thread only appends rows and says how far it has committed;
 * this worker reads the new rows through its own connection and indexes them, so the two
 * halves of storing a message run on two cores. It also applies logged deletions and merges
 * index segments while the server is idle, so merging never stalls the event loop that serves
 * IRC and the browsers. It also checkpoints `parley.db`'s write-ahead log when the message writer
 * asks (the fsyncs at its end can take a hundred milliseconds and more): one thread and one
 * JavaScript engine for both jobs, since an engine costs ~10 MB of memory even when idle.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { createUserIndex, indexUser, META, SEARCH_PRAGMAS, userIndex } from "./search_file.ts";
import type { FromWorker, ToWorker } from "./search_index.ts";
import { canCollect, collectAndTrim } from "../../lib/malloc_trim.ts";
import { lowerThreadPriority } from "../../lib/thread_priority.ts";
import { diskFailed, rollback } from "./db.ts";
// FIRST_EVENT_CODE of protocol/messages.ts, written out: the worker of the compiled binary may
// read only the modules it was built with.
const FIRST_EVENT_CODE = 4;

/** Rows per indexing transaction at most; a backlog is worked off in steps this size. */
const BATCH = 20_000;
/** Quiet time before the index is tidied (segments merged). */
const MERGE_IDLE_MS = 1000;
/** Index pages per merge step; the worker looks for new work between steps. */
const MERGE_PAGES = 256;
/** Deletions made by cascades (users, connections) are not announced; look for them this often. */
const POLL_MS = 5000;
/** While the disk refuses the index's writes, how often they are tried again. */
const FULL_RETRY_MS = 5000;

// Indexing is background work: at a low priority it takes what the threads users wait on leave
// (lib/thread_priority.ts). Its checkpoints run at that priority too; the writer holds its
// commits for one at most 250 ms (store/sqlite/messages/pacing.ts), then goes on without it.
lowerThreadPriority();

const port = self as unknown as {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
};

let search: DatabaseSync;
let source: DatabaseSync;
/** The connection that checkpoints parley.db (a read-only one cannot). */
let wal: DatabaseSync | undefined;
let statements: ReturnType<typeof prepare>;
/** Highest message id the main thread has said is committed. */
let target = 0;
let indexed = 0;
let deleted = 0;
let working = false;
let mergeTimer: ReturnType<typeof setTimeout> | undefined;
let settleWanted = false;
/** Rows were indexed since the last full collection (see `collect`). */
let grown = false;
let closed = false;
/** The disk refused the index's last write; said once, until a write goes through. */
let full = false;

function prepare() {
  return {
    messages: source.prepare(
      // Channel events (joins, parts...) stay out of the index (migration 010 keeps their
      // deletions out of the deletion log).
      `SELECT id, user_id, conversation, text FROM messages
       WHERE id > ? AND type < ${FIRST_EVENT_CODE} ORDER BY id LIMIT ?`,
    ),
    deletions: source.prepare(
      `SELECT seq, id, user_id, conversation, text FROM message_deletions
       WHERE seq > ? ORDER BY seq LIMIT ?`,
    ),
    userExists: source.prepare("SELECT 1 AS x FROM users WHERE id = ?"),
    meta: search.prepare("UPDATE search_meta SET value = ? WHERE key = ?"),
    readMeta: search.prepare("SELECT value FROM search_meta WHERE key = ?"),
    changes: search.prepare("SELECT total_changes() AS n"),
    tables: search.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"),
  };
}

/** The statements on one user's index, created with the index on first use. */
interface UserIndex {
  insert: StatementSync;
  remove: StatementSync;
  merge: StatementSync;
}
const users = new Map<number, UserIndex>();
/** Users whose index got rows since it was last fully merged: the only ones worth merging. */
const unmerged = new Set<number>();

function userStatements(userId: number): UserIndex {
  let u = users.get(userId);
  if (!u) {
    const table = userIndex(userId);
    search.exec(createUserIndex(userId));
    u = {
      insert: search.prepare(`INSERT INTO ${table} (rowid, text, scope) VALUES (?, ?, ?)`),
      remove: search.prepare(
        `INSERT INTO ${table} (${table}, rowid, text, scope) VALUES ('delete', ?, ?, ?)`,
      ),
      merge: search.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`),
    };
    users.set(userId, u);
  }
  return u;
}

/** Drops the index of a deleted user at once, instead of deleting their rows one by one. */
function dropUser(userId: number) {
  users.delete(userId);
  unmerged.delete(userId);
  search.exec(`DROP TABLE IF EXISTS ${userIndex(userId)}`);
}

function open(dbPath: string, searchPath: string) {
  search = new DatabaseSync(searchPath);
  search.exec(SEARCH_PRAGMAS);
  search.exec("PRAGMA wal_autocheckpoint = 10000;");
  source = new DatabaseSync(dbPath);
  // Page caches sized on purpose (each grows only as it is used): the index's writes want the
  // index's top pages at hand; the source is read once, in id order, with plain reads (through
  // mmap, every page of a burst it read stayed resident in this process: 4-8 MB after 200,000
  // lines, and no faster: 1 M messages indexed in 9.1 s without it, 9.2 s with it); the WAL
  // connection reads nothing.
  search.exec("PRAGMA cache_size = -16384;");
  source.exec(`PRAGMA busy_timeout = 5000; PRAGMA mmap_size = 0; PRAGMA query_only = 1;
    PRAGMA cache_size = -2048;`);
  wal = new DatabaseSync(dbPath);
  // After a restart the WAL file is cut back to this size, so a burst does not keep it big.
  wal.exec(
    "PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = 67108864; PRAGMA cache_size = -256;",
  );
  statements = prepare();
  for (const { name } of statements.tables.all() as { name: string }[]) {
    const userId = indexUser(name);
    if (userId !== undefined) userStatements(userId), unmerged.add(userId);
  }
  indexed = readMeta(META.indexed);
}

/** One transaction of indexing and deleting; false when there was nothing to do. */
function step(): boolean {
  const known = target;
  // The write lock first, then the watermarks: a second Parley on the same folder (a mistake,
  // but a possible one) then waits instead of indexing the same rows twice.
  search.exec("BEGIN IMMEDIATE");
  let rows: { id: number; user_id: number; conversation: number; text: string }[];
  let dels: { seq: number; id: number; user_id: number; conversation: number; text: string }[];
  try {
    indexed = readMeta(META.indexed);
    deleted = readMeta(META.deleted);
    // One snapshot for both reads: a message deleted after it is read here shows up in a later
    // step's deletions; one deleted before is in neither list, so nothing is ever removed that
    // was not indexed (a contentless index would be corrupted by that).
    source.exec("BEGIN");
    try {
      dels = statements.deletions.all(deleted, BATCH) as typeof dels;
      rows = statements.messages.all(indexed, BATCH) as typeof rows;
    } finally {
      source.exec("COMMIT");
    }
    grown ||= rows.length > 0;
    for (const r of rows) {
      userStatements(r.user_id).insert.run(r.id, r.text, `c${r.conversation}`);
      unmerged.add(r.user_id);
    }
    const gone = new Set<number>();
    for (const d of dels) {
      // A deleted id above `indexed` was never indexed: it vanished before this step read it.
      if (d.id > indexed || gone.has(d.user_id) || !users.has(d.user_id)) continue;
      if (!statements.userExists.get(d.user_id)) {
        gone.add(d.user_id);
        dropUser(d.user_id);
        continue;
      }
      users.get(d.user_id)!.remove.run(d.id, d.text, `c${d.conversation}`);
    }
    if (rows.length) statements.meta.run(rows[rows.length - 1].id, META.indexed);
    if (dels.length) statements.meta.run(dels[dels.length - 1].seq, META.deleted);
    search.exec("COMMIT");
  } catch (err) {
    rollback(search); // a full disk has rolled it back already
    throw err;
  }
  if (rows.length) indexed = rows[rows.length - 1].id;
  if (dels.length) deleted = dels[dels.length - 1].seq;
  // Everything committed before `known` was announced has been read, unless a batch was full.
  report(rows.length < BATCH && dels.length < BATCH ? known : 0);
  return rows.length > 0 || dels.length > 0;
}

function readMeta(key: string): number {
  return (statements.readMeta.get(key) as { value: number }).value;
}

function report(known: number) {
  port.postMessage({ kind: "progress", indexed: Math.max(indexed, known), deleted });
}

function work() {
  working = false;
  if (closed) return;
  let more = false;
  try {
    more = step();
  } catch (err) {
    // The next try waits out the retry time: commits meanwhile do not wake it.
    refused(err, () => {
      working = true;
      setTimeout(work, FULL_RETRY_MS);
    });
    return;
  }
  roomAgain();
  if (more) {
    working = true;
    setTimeout(work, 0); // yields, so that a close or settle request is seen between steps
  } else {
    scheduleMerge(settleWanted ? 0 : MERGE_IDLE_MS);
  }
}

function wake() {
  if (working || closed) return;
  working = true;
  if (mergeTimer !== undefined) clearTimeout(mergeTimer);
  mergeTimer = undefined;
  setTimeout(work, 0);
}

function scheduleMerge(delay: number) {
  if (mergeTimer !== undefined) clearTimeout(mergeTimer);
  mergeTimer = setTimeout(mergeStep, delay);
}

// Ingest leaves many small index segments (automerge is set high so that writes stay fast),
// and every term lookup probes each of them; once writes pause, merge them in small steps.
function mergeStep() {
  mergeTimer = undefined;
  if (closed || working) return;
  let more = false;
  try {
    for (const userId of unmerged) {
      const before = (statements.changes.get() as { n: number }).n;
      users.get(userId)?.merge.run(MERGE_PAGES);
      // Fewer than two changes means there was nothing left to merge (SQLite's FTS5 docs).
      if ((statements.changes.get() as { n: number }).n - before >= 2) {
        more = true;
        break;
      }
      unmerged.delete(userId);
    }
  } catch (err) {
    refused(err, () => scheduleMerge(FULL_RETRY_MS));
    return;
  }
  roomAgain();
  if (more) return scheduleMerge(0);
  collect();
  if (settleWanted) {
    settleWanted = false;
    port.postMessage({ kind: "settled" });
  }
  // While idle, look now and then for deletions made by cascades.
  mergeTimer = setTimeout(wake, POLL_MS);
}

/**
 * Once indexing is done and the index merged, a full collection gives back the heap a burst
 * grew (V8 may not run one for minutes in an idle thread), with the page caches and the C
 * allocator's free pages (lib/malloc_trim.ts; nothing happens without `--expose-gc`).
 */
function collect() {
  if (!grown || !canCollect()) return;
  grown = false;
  // The page caches filled by the burst go back too (they refill from mmap as needed).
  for (const db of [search, source, wal]) db?.exec("PRAGMA shrink_memory");
  // This thread often finishes after the main thread's collection: its frees are trimmed here.
  collectAndTrim();
}

function fail(err: unknown) {
  closed = true;
  port.postMessage({ kind: "failed", error: String(err) });
}

/** A write went through: the disk has room again, if it had none. */
function roomAgain() {
  if (!full) return;
  full = false;
  port.postMessage({ kind: "room" });
}

/**
 * A write the disk refused (the index grows as the messages do, and a disk may stay full for
 * hours): said once and tried again after `again` has waited, while search answers from what is
 * indexed. Starting the worker over, as for other failures, would cost a new engine and an error
 * in the log every few seconds for as long as the disk stays full. Anything else ends the worker.
 */
function refused(err: unknown, again: () => void) {
  if (!diskFailed(err)) return fail(err);
  if (!full) {
    full = true;
    port.postMessage({ kind: "full", error: String(err) });
  }
  again();
}

/**
 * RESTART: copies all of the WAL, waiting for readers of older snapshots, so that the next commit
 * starts it over. It would also hold writers back, but the writer holds its commits back itself
 * while it waits for the answer. This thread's own reads are never in a transaction here: it runs
 * between indexing steps. A failure is the writer's to log; indexing goes on.
 */
function checkpoint() {
  try {
    // The copying first, without holding writers back: this thread runs at a low priority, and a
    // RESTART that copied a large WAL itself held the write lock for seconds on a loaded machine
    // (past the writers' busy timeout). The RESTART after it has little left to copy.
    wal?.exec("PRAGMA wal_checkpoint(PASSIVE)");
    wal?.exec("PRAGMA wal_checkpoint(RESTART)");
    port.postMessage({ kind: "checkpointed" });
  } catch (err) {
    port.postMessage({ kind: "checkpointed", error: String(err) });
  }
}

port.onmessage = (e) => {
  const msg = e.data;
  try {
    if (msg.kind === "start") {
      open(msg.dbPath, msg.searchPath);
      port.postMessage({ kind: "ready", indexed });
      target = msg.committed;
      wake();
    } else if (msg.kind === "work") {
      target = Math.max(target, msg.committed);
      wake();
    } else if (msg.kind === "settle") {
      settleWanted = true;
      wake();
    } else if (msg.kind === "checkpoint") {
      checkpoint();
    } else if (msg.kind === "close") {
      closed = true;
      if (mergeTimer !== undefined) clearTimeout(mergeTimer);
      search?.close();
      source?.close();
      wal?.close();
      port.postMessage({ kind: "closed" });
    }
  } catch (err) {
    fail(err);
  }
};
