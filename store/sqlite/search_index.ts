/**
 * The main thread's side of the search index: opening `search.db` (and starting it over when
 * it cannot be trusted), and the handle on the indexing worker (store/sqlite/search_worker.ts),
 * which it tells how far messages are committed, so that searches can wait until they are indexed.
 */
import { DatabaseSync } from "node:sqlite";
import { log } from "../../lib/log.ts";
import { makePrivate } from "./db.ts";
import type { Checkpointer } from "./checkpointer.ts";
import { META, SEARCH_PRAGMAS, SEARCH_VERSION } from "./search_file.ts";

/** Messages to the worker. */
export type ToWorker =
  | { kind: "start"; dbPath: string; searchPath: string; committed: number }
  | { kind: "work"; committed: number }
  | { kind: "settle" }
  | { kind: "checkpoint" }
  | { kind: "close" };

/** Messages from the worker. */
export type FromWorker =
  | { kind: "ready"; indexed: number }
  | { kind: "progress"; indexed: number; deleted: number }
  | { kind: "settled" }
  | { kind: "checkpointed"; error?: string }
  | { kind: "closed" }
  | { kind: "failed"; error: string }
  /** The disk refused the index's write; tried again until `room`. */
  | { kind: "full"; error: string }
  | { kind: "room" };

/** How long a search waits for the index before answering from what is indexed. */
const SEARCH_WAIT_MS = 2000;
/**
 * Shortest time between two "work" messages to the worker while commits keep coming. The writer
 * commits up to a hundred times a second under steady traffic, and each indexing step has a cost
 * of its own whatever it carries (a transaction of search.db, a new index segment to merge
 * later, a message each way), so steady traffic is indexed in steps of a tenth of a second
 * instead. A search waiting for the index has the held message sent at once.
 */
const WORK_PACE_MS = 100;
/** Delay before a failed worker is started again. */
const RESTART_MS = 5000;

/**
 * The indexer as the message store sees it. Its worker also checkpoints parley.db's WAL (the
 * `Checkpointer` side): one thread and one JavaScript engine for both.
 */
export interface SearchIndexer extends Checkpointer {
  /**
   * Messages with ids up to `id` are committed (or some deleted): bring the index up to date.
   * The worker is told at its pace, or at once with `now` (deletions: what waits for them
   * should not wait for the pace too).
   */
  committed(id: number, now?: boolean): void;
  /**
   * Resolves once every message up to `id` is searchable, or after `waitMs` (a rebuild of a
   * large index, a failed worker): search then answers from what is indexed.
   */
  searchable(id: number, waitMs?: number): Promise<void>;
  /** The `seq` up to which logged deletions are applied, so the log can be trimmed. */
  deletedUpTo(): number;
  /** Resolves once everything is indexed and the index is merged (benchmarks, tests). */
  settled(): Promise<void>;
  /** Stops the worker; what is not yet indexed is indexed at the next start. */
  close(): Promise<void>;
}

/**
 * How the indexer paces its worker; tests shorten or lengthen it.
 *
 * @internal test seam
 */
export interface IndexerPace {
  /** Shortest time between two "work" messages (WORK_PACE_MS). */
  workPaceMs?: number;
  /** Told of every "work" message sent, with the id it carries (tests count them). */
  onWork?: (committed: number) => void;
}

/**
 * The indexer for `parley.db` at `dbPath` and its index at `searchPath`. Its worker (a JavaScript
 * engine of ~10 MB) starts at once only when `behind` (the index lacks committed messages or
 * deletions); otherwise with the first commit, so a daemon with nothing to index has none.
 */
export function startSearchIndexer(
  dbPath: string,
  searchPath: string,
  committedId: number,
  behind = true,
  { workPaceMs = WORK_PACE_MS, onWork }: IndexerPace = {},
): SearchIndexer {
  let worker: Worker | undefined;
  let committed = committedId;
  let indexed = 0;
  let deleted = 0;
  let closing = false;
  /** The disk refuses the index's writes: searches answer from what is indexed, at once. */
  let full = false;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  const waiters = new Set<{ id: number; done: () => void }>();
  const settleWaiters: (() => void)[] = [];
  /** Checkpoints asked for and not answered yet; the worker answers in order. */
  const checkpoints: (() => void)[] = [];
  let onClosed: (() => void) | undefined;

  function release(all: boolean) {
    for (const w of waiters) {
      if (all || w.id <= indexed) {
        waiters.delete(w);
        w.done();
      }
    }
  }

  /** The worker is started once; after a failure it is started again by `failed`. */
  let started = false;
  function start() {
    if (started || closing) return;
    started = true;
    spawn();
  }

  function spawn() {
    const w = new Worker(new URL("./search_worker.ts", import.meta.url).href, { type: "module" });
    worker = w;
    w.onmessage = (e: MessageEvent<FromWorker>) => {
      const msg = e.data;
      if (msg.kind === "ready") {
        log.info("search index open", { indexed: msg.indexed, committed });
      } else if (msg.kind === "progress") {
        indexed = Math.max(indexed, msg.indexed);
        deleted = Math.max(deleted, msg.deleted);
        release(false);
      } else if (msg.kind === "settled") {
        for (const done of settleWaiters.splice(0)) done();
      } else if (msg.kind === "checkpointed") {
        if (msg.error) log.warn("checkpoint failed", { error: msg.error });
        checkpoints.shift()?.();
      } else if (msg.kind === "closed") {
        w.terminate();
        onClosed?.();
      } else if (msg.kind === "failed") {
        failed(msg.error);
      } else if (msg.kind === "full") {
        full = true;
        log.warn("search index waits for room on the disk; search answers from what it has", {
          error: msg.error,
        });
        release(true);
        for (const done of settleWaiters.splice(0)) done();
      } else if (msg.kind === "room") {
        full = false;
        log.info("search index has room again");
      }
    };
    w.onerror = (e) => {
      e.preventDefault();
      failed(e.message);
    };
    const start: ToWorker = { kind: "start", dbPath, searchPath, committed };
    w.postMessage(start);
  }

  // Searches must not hang on a broken index: they answer from what is there, and the worker
  // is started again a little later (it resumes from what search.db says it has done).
  function failed(error: string) {
    log.error("search indexer failed", { error });
    worker?.terminate();
    worker = undefined;
    release(true);
    for (const done of settleWaiters.splice(0)) done();
    for (const done of checkpoints.splice(0)) done();
    if (closing) return onClosed?.();
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (!closing) spawn();
    }, RESTART_MS);
  }

  function send(msg: ToWorker) {
    worker?.postMessage(msg);
  }

  /** When the last "work" message went, and the timer of the one held back (if any). */
  let workSentAt = -Infinity;
  let workTimer: ReturnType<typeof setTimeout> | undefined;

  /** Tells the worker how far messages are committed, at most once per `workPaceMs`. */
  function tellWork() {
    if (workTimer !== undefined) return;
    const wait = workSentAt + workPaceMs - performance.now();
    if (wait <= 0) sendWork();
    else workTimer = setTimeout(sendWork, wait);
  }

  function sendWork() {
    if (workTimer !== undefined) clearTimeout(workTimer);
    workTimer = undefined;
    workSentAt = performance.now();
    onWork?.(committed);
    send({ kind: "work", committed });
  }

  /** The held "work" message, if any, goes now (someone waits for the index). */
  function flushWork() {
    if (workTimer !== undefined) sendWork();
  }

  if (behind) start();
  return {
    committed(id, now = false) {
      committed = Math.max(committed, id);
      if (!started) return start(); // its start message carries `committed`
      if (now) sendWork();
      else tellWork();
    },
    searchable(id, waitMs = SEARCH_WAIT_MS) {
      if (id <= indexed || !worker || full) return Promise.resolve();
      flushWork();
      return new Promise((resolve) => {
        const waiter = { id, done: () => (clearTimeout(timer), resolve()) };
        const timer = Number.isFinite(waitMs)
          ? setTimeout(() => {
            waiters.delete(waiter);
            resolve();
          }, waitMs)
          : undefined;
        waiters.add(waiter);
      });
    },
    deletedUpTo: () => deleted,
    checkpoint() {
      // Without a worker (restarting after a failure) the automatic checkpoint is the backstop.
      if (!worker || closing) return Promise.resolve();
      return new Promise((resolve) => {
        checkpoints.push(resolve);
        send({ kind: "checkpoint" });
      });
    },
    settled() {
      if (!worker || full) return Promise.resolve();
      const done = new Promise<void>((resolve) => settleWaiters.push(resolve));
      flushWork();
      send({ kind: "settle" });
      return done;
    },
    close() {
      closing = true;
      if (restartTimer !== undefined) clearTimeout(restartTimer);
      // What is not indexed yet is indexed at the next start.
      if (workTimer !== undefined) clearTimeout(workTimer);
      workTimer = undefined;
      release(true);
      for (const done of checkpoints.splice(0)) done();
      if (!worker) return Promise.resolve();
      const done = new Promise<void>((resolve) => onClosed = resolve);
      send({ kind: "close" });
      return done;
    },
  };
}

/** Whether the index at `db` lacks messages below `nextId` or deletions up to `deletedSeq`. */
export function searchBehind(db: DatabaseSync, nextId: number, deletedSeq: number): boolean {
  const meta = db.prepare("SELECT value FROM search_meta WHERE key = ?");
  const value = (key: string) => (meta.get(key) as { value: number } | undefined)?.value ?? 0;
  return value(META.indexed) < nextId - 1 || value(META.deleted) < deletedSeq;
}

/**
 * Opens `search.db` for the main thread's searches, starting a new file first when the one
 * there does not match `messages` (whose next id is `nextId`, and whose deletion log has
 * reached `deletedSeq`). Separate connections, not ATTACH: Deno's node:sqlite allows ATTACH
 * only to processes with every permission, which a compiled Parley does not have.
 */
export async function openSearch(
  path: string,
  nextId: number,
  deletedSeq: number,
): Promise<DatabaseSync> {
  const open = () => {
    makePrivate(path);
    const db = new DatabaseSync(path);
    // Takes effect only while the file is new. Measured: 16 KiB pages index 14% faster than 4 KiB
    // and take a third less space (the index is mostly long runs of list data).
    db.exec("PRAGMA page_size = 16384");
    db.exec(SEARCH_PRAGMAS);
    // This connection only answers searches, which read through mmap: a small page cache is
    // enough (the indexer's worker, which writes, sizes its own).
    db.exec("PRAGMA cache_size = -4096");
    db.exec(`CREATE TABLE IF NOT EXISTS search_meta (
      key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT`);
    return db;
  };
  let db: DatabaseSync | undefined;
  try {
    db = open();
    const meta = db.prepare("SELECT value FROM search_meta WHERE key = ?");
    const value = (key: string) => (meta.get(key) as { value: number } | undefined)?.value;
    if (value(META.version) === SEARCH_VERSION && (value(META.indexed) ?? 0) < nextId) return db;
  } catch (err) {
    // Not a database (damaged, or some other file): it is only an index, so start it over.
    log.warn("search index unreadable; rebuilding it", { error: String(err) });
  }

  db?.close();
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(path + suffix).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
  db = open();
  const set = db.prepare("INSERT INTO search_meta (key, value) VALUES (?, ?)");
  db.exec("BEGIN IMMEDIATE");
  set.run(META.version, SEARCH_VERSION);
  set.run(META.indexed, 0);
  // Deletions logged before this point concern messages the rebuild will not find.
  set.run(META.deleted, deletedSeq);
  db.exec("COMMIT");
  return db;
}
