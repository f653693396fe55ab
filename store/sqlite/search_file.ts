/**
 * The search index file, `search.db`: one FTS5 index per user over their `messages`, kept
 * beside `parley.db` and written only by the indexing worker (store/sqlite/search_worker.ts).
 *
 * It holds nothing that cannot be rebuilt from `messages` (see openSearch in search_index.ts).
 * The worker imports this module, so it imports nothing itself.
 */

/** Bump when the index definition changes: every install then rebuilds its index. */
export const SEARCH_VERSION = 3;

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
