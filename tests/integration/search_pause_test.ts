/**
 * The search indexer holds new messages back while commits keep coming (a burst is stored first
 * and indexed after it), up to a bound, and never keeps a search waiting for the pause.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { openDatabase } from "../../store/sqlite/db.ts";
import { migrate, sqliteMigrations } from "../../store/sqlite/migrate.ts";
import {
  type IndexPause,
  openSearch,
  type SearchIndexer,
  startSearchIndexer,
} from "../../store/sqlite/search_index.ts";
import { META } from "../../store/sqlite/search_file.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A data folder with one message (id 1) indexed, and a way to add and count more. */
async function withIndexer(
  pause: IndexPause,
  fn: (t: {
    indexer: SearchIndexer;
    add: (id: number) => void;
    indexedUpTo: () => number;
    until: (id: number) => Promise<number>;
  }) => Promise<void>,
) {
  const home = await Deno.makeTempDir({ prefix: "parley-search-pause-" });
  const dbPath = join(home, "parley.db");
  const searchPath = join(home, "search.db");
  const db = openDatabase(dbPath);
  migrate(db, await sqliteMigrations());
  // Rows of a conversation that is not there: the indexer reads `messages` only.
  db.exec("PRAGMA foreign_keys = OFF");
  const insert = db.prepare(
    "INSERT INTO messages (id, conversation, user_id, ts, type, sender, text) VALUES (?, 1, 1, ?, 0, 'bob', ?)",
  );
  const add = (id: number) => void insert.run(id, id, `line ${id}`);
  const searchDb = await openSearch(searchPath, 1, 0);
  const meta = searchDb.prepare("SELECT value FROM search_meta WHERE key = ?");
  const indexedUpTo = () => (meta.get(META.indexed) as { value: number }).value;
  /** Waits (10 s at most) until `id` is indexed; the ms it took. */
  const until = async (id: number) => {
    const since = performance.now();
    while (indexedUpTo() < id && performance.now() - since < 10_000) await sleep(10);
    return performance.now() - since;
  };
  const indexer = startSearchIndexer(dbPath, searchPath, 0, false, pause);
  try {
    add(1);
    indexer.committed(1); // the first commit starts the worker, which reads what it is told
    await until(1);
    assertEquals(indexedUpTo(), 1);
    await fn({ indexer, add, indexedUpTo, until });
  } finally {
    await indexer.close();
    searchDb.close();
    db.close();
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("new messages are indexed once commits pause, not while they keep coming", async () => {
  await withIndexer(
    { quietMs: 2000, lagMs: 60_000 },
    async ({ indexer, add, indexedUpTo, until }) => {
      for (let id = 2; id <= 11; id++) {
        add(id);
        indexer.committed(id);
        await sleep(50);
      }
      assertEquals(indexedUpTo(), 1, "held while commits keep coming");
      const waited = await until(11);
      assertEquals(indexedUpTo(), 11, "indexed once they pause");
      assert(
        waited >= 1500,
        `not before the pause: ${Math.round(waited)} ms after the last commit`,
      );
    },
  );
});

Deno.test("commits that never pause are indexed after the longest lag", async () => {
  await withIndexer(
    { quietMs: 60_000, lagMs: 500 },
    async ({ indexer, add, indexedUpTo, until }) => {
      add(2);
      indexer.committed(2);
      const waited = await until(2);
      assertEquals(indexedUpTo(), 2);
      assert(waited >= 400, `held for the lag: ${Math.round(waited)} ms`);
    },
  );
});

Deno.test("a search does not wait for the pause; the worker's own look for deletions takes no held rows", async () => {
  await withIndexer({ quietMs: 60_000, lagMs: 60_000 }, async ({ indexer, add, indexedUpTo }) => {
    add(2);
    indexer.committed(2);
    // The worker looks for deletions by cascades 5 s after it last worked (and merged).
    await sleep(7000);
    assertEquals(indexedUpTo(), 1, "a look for deletions indexed a held row");
    const since = performance.now();
    await indexer.searchable(2, 10_000);
    assertEquals(indexedUpTo(), 2, "a search waiting has it indexed");
    assert(performance.now() - since < 5000, "at once, not at the search's time limit");
  });
});
