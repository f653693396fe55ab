/**
 * The search index file, `search.db`: one FTS5 index per user over their `messages`, kept
 * beside `parley.db` and written only by the indexing worker (store/search_worker.ts).
 *
 * It holds nothing that cannot be rebuilt from `messages`: when it is from another version,
 * or ahead of the messages it claims to index (an older `parley.db` restored from a backup),
 * it is deleted and the worker fills a new one.
 */
import { DatabaseSync } from "node:sqlite";

/** Bump when the index definition changes: every install then rebuilds its index. */
const SEARCH_VERSION = 3;

/** Keys of `search_meta`. */
export const META = {
  version: "version",
  /** Every message with an id up to this one is indexed. */
  indexed: "indexed",
  /** The worker has applied `message_deletions` up to this `seq`. */
  deleted: "deleted",
} as const;

/** The index table of one user. Per user, so that a search never reads another user's rows. */
export function userIndex(userId: number): string {
  return `fts_user_${Math.trunc(userId)}`;
}

/** A user id from an index table name, or undefined for other tables. */
export function indexUser(table: string): number | undefined {
  const m = /^fts_user_(\d+)$/.exec(table);
  return m ? Number(m[1]) : undefined;
}

/**
 * The statements that create a user's index. Contentless: the text stays in `messages`; the
 * index holds only the inverted lists. Without per-row sizes (`columnsize=0`, nothing ranks by
 * length), which makes indexing about a tenth faster; a removal therefore names the row's text
 * again (`message_deletions` keeps it). `scope` holds the token c<conversation row id>, so that
 * restricting a search to conversations is an intersection of lists, not a filter over every
 * match. The 3-letter prefix index keeps short word prefixes to one list.
 */
export function createUserIndex(userId: number): string {
  const table = userIndex(userId);
  return `
    CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5 (
      text,
      scope,
      content = '',
      columnsize = 0,
      prefix = '3',
      tokenize = 'unicode61 remove_diacritics 2'
    );
    -- Leaves as large as the file's pages (16 KiB): fewer, fuller pages to write and merge.
    INSERT INTO ${table} (${table}, rank) VALUES ('pgsz', 16000);
    -- Fewer, larger merges while ingesting; the worker merges the rest while idle.
    INSERT INTO ${table} (${table}, rank) VALUES ('automerge', 16);
    INSERT INTO ${table} (${table}, rank) VALUES ('usermerge', 2);
  `;
}

/** Pragmas for a connection to `search.db`. */
export const SEARCH_PRAGMAS = `
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = NORMAL;
  PRAGMA busy_timeout = 5000;
  PRAGMA mmap_size = 2147418112;
  PRAGMA cache_size = -65536;
`;

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
    const db = new DatabaseSync(path);
    // Takes effect only while the file is new. Measured: 16 KiB pages index 14% faster than 4 KiB
    // and take a third less space (the index is mostly long runs of list data).
    db.exec("PRAGMA page_size = 16384");
    db.exec(SEARCH_PRAGMAS);
    db.exec(`CREATE TABLE IF NOT EXISTS search_meta (
      key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT`);
    return db;
  };
  let db = open();
  const meta = db.prepare("SELECT value FROM search_meta WHERE key = ?");
  const value = (key: string) => (meta.get(key) as { value: number } | undefined)?.value;
  if (value(META.version) === SEARCH_VERSION && (value(META.indexed) ?? 0) < nextId) return db;

  db.close();
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
