/**
 * The store's threads: the search indexer's worker also checkpoints parley.db's WAL.
 *
 * @test-alone: the tests count this process's worker threads, and test files run in parallel share
 * the process (another file's worker ending between two counts made one count short).
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sqliteBackend } from "../../store/sqlite/mod.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { openDatabase } from "../../store/sqlite/db.ts";
import { migrate, sqliteMigrations } from "../../store/sqlite/migrate.ts";
import { openSearch, searchBehind, startSearchIndexer } from "../../store/sqlite/search_index.ts";
import { BACKGROUND_NICE } from "../../lib/thread_priority.ts";
import { niceByThread } from "../support/threads.ts";

Deno.test("the indexer's worker copies parley.db's WAL into the file when asked", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-threads-" });
  const dbPath = join(home, "parley.db");
  const db = openDatabase(dbPath);
  migrate(db, await sqliteMigrations());
  // Only an explicit checkpoint may move pages into the file in this test.
  db.exec("PRAGMA wal_autocheckpoint = 0");
  const searchDb = await openSearch(join(home, "search.db"), 1, 0);
  const indexer = startSearchIndexer(dbPath, join(home, "search.db"), 0);
  try {
    db.exec("CREATE TABLE filler (x BLOB)");
    const insert = db.prepare("INSERT INTO filler (x) VALUES (randomblob(4000))");
    db.exec("BEGIN");
    for (let i = 0; i < 500; i++) insert.run();
    db.exec("COMMIT");
    const before = Deno.statSync(dbPath).size;
    assert(Deno.statSync(dbPath + "-wal").size > 2_000_000, "the rows are in the WAL");
    await indexer.checkpoint();
    assert(Deno.statSync(dbPath).size > before + 2_000_000, "the rows were copied into the file");
    // A second request is answered too (they are answered in order).
    await indexer.checkpoint();
    if (Deno.build.os === "linux") {
      // The worker's thread runs at the background priority (lib/thread_priority.ts).
      const nice = [...niceByThread().values()];
      const main = Math.min(...nice);
      const expected = Math.min(19, main + BACKGROUND_NICE);
      assert(nice.includes(expected), `a thread at nice ${expected}: ${nice}`);
    }
    assertEquals((db.prepare("SELECT count(*) AS n FROM filler").get() as { n: number }).n, 500);
  } finally {
    await indexer.close();
    // Answered at once once closed: a late writer never waits on a stopped worker.
    await indexer.checkpoint();
    searchDb.close();
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});

/** Threads of this process that run a worker's engine (Deno names them `worker-<n>`). */
function workerThreads(): number {
  let n = 0;
  for (const t of Deno.readDirSync("/proc/self/task")) {
    const comm = Deno.readTextFileSync(`/proc/self/task/${t.name}/comm`);
    if (comm.startsWith("worker-")) n++;
  }
  return n;
}

Deno.test({
  name: "the indexer's worker starts with the first message, not with an empty store",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const home = await Deno.makeTempDir({ prefix: "parley-threads-" });
    const dbPath = join(home, "parley.db");
    const db = openDatabase(dbPath);
    migrate(db, await sqliteMigrations());
    const searchPath = join(home, "search.db");
    const searchDb = await openSearch(searchPath, 1, 0);
    const before = workerThreads();
    const indexer = startSearchIndexer(dbPath, searchPath, 0, searchBehind(searchDb, 1, 0));
    try {
      assertEquals(workerThreads(), before, "nothing to index: no worker");
      await indexer.settled(); // answered without one
      indexer.committed(1);
      assertEquals(workerThreads(), before + 1, "a commit starts it");
    } finally {
      await indexer.close();
      searchDb.close();
      db.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("an index behind parley.db has its worker started at once", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-threads-" });
  const dbPath = join(home, "parley.db");
  const db = openDatabase(dbPath);
  migrate(db, await sqliteMigrations());
  const searchPath = join(home, "search.db");
  // Messages up to id 4 committed, none indexed.
  const searchDb = await openSearch(searchPath, 5, 0);
  try {
    assert(searchBehind(searchDb, 5, 0), "ids 1-4 are not indexed");
    assert(!searchBehind(searchDb, 1, 0), "nothing committed: nothing behind");
    assert(searchBehind(searchDb, 1, 3), "deletions not applied");
  } finally {
    searchDb.close();
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reading a conversation counts the writer's pending unread messages without a commit", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-threads-" });
  const store = await sqliteBackend.open(home);
  // Another connection to the file sees only what is committed.
  const reader = new DatabaseSync(join(home, "parley.db"), { readOnly: true });
  const committed = () =>
    (reader.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n;
  try {
    const user = await store.users.create("jane@example.com", "x", []);
    const connection = await store.connections.create({
      userId: user.id,
      connectionId: "irc-example",
      name: "example",
      url: "irc://irc.example.org",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
    const conv = await store.conversations.ensure(connection.id, "#busy", "#busy");
    const append = (text: string, unread: boolean) =>
      store.messages.append({
        conversation: conv.id,
        userId: user.id,
        from: "bob",
        type: "private",
        text,
        unread,
      });
    await append("one", true);
    await append("bob joined.", false);
    await append("two", true);
    const read = await store.conversations.get(connection.id, "#busy");
    assertEquals(read?.unread, 2, "the pending count is added");
    assertEquals(committed(), 0, "and nothing was committed for it");
    await store.messages.flush();
    assertEquals(committed(), 3);
    assertEquals((await store.conversations.get(connection.id, "#busy"))?.unread, 2, "once");
    // A connection's listing adds the pending counts too, without a commit.
    await append("three", true);
    const [listed] = await store.conversations.listForConnection(connection.id);
    assertEquals([listed.unread, committed()], [3, 3]);
  } finally {
    reader.close();
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});
