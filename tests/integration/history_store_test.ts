import { nowMicros } from "../../lib/time.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { openSqliteStore, type SqliteStore } from "../../store/sqlite/mod.ts";
import type { MessageJson } from "../../protocol/messages.ts";
import { userIndex } from "../../store/sqlite/search_file.ts";
import { idleConnection } from "../support/backends.ts";

interface Fixture {
  store: SqliteStore;
  home: string;
  userId: number;
  otherId: number;
  /** conversations.id of #test, #other and the other user's #test */
  test: number;
  other: number;
  foreign: number;
}

async function fixture(existing?: string): Promise<Fixture> {
  const home = existing ?? await Deno.makeTempDir({ prefix: "parley-history-" });
  const store = await openSqliteStore(home);
  const user = await store.users.create("u@example.com", "x", []);
  const other = await store.users.create("o@example.com", "x", []);
  const conn = (userId: number) => idleConnection(store, userId);
  const c1 = await conn(user.id);
  const c2 = await conn(other.id);
  return {
    store,
    home,
    userId: user.id,
    otherId: other.id,
    test: (await store.conversations.ensure(c1.id, "#test", "#Test")).id,
    other: (await store.conversations.ensure(c1.id, "#other", "#other")).id,
    foreign: (await store.conversations.ensure(c2.id, "#test", "#test")).id,
  };
}

async function done(f: Fixture) {
  await f.store.close();
  await Deno.remove(f.home, { recursive: true });
}

const texts = (page: { messages: MessageJson[] }) => page.messages.map((m) => m.message);

Deno.test("history store: notifications, and deleting a conversation cleans the index", async (t) => {
  const f = await fixture();
  // A millisecond apart, as messages arrive (see message_store_test.ts).
  let at = nowMicros();
  const add = (conversation: number, userId: number, text: string, highlight = false) => {
    const msg = { conversation, userId, from: "alice", text, highlight, ts: at += 1000 };
    return f.store.messages.append({ ...msg, type: "private" });
  };
  try {
    add(f.test, f.userId, "we deploy on friday");
    add(f.test, f.userId, "safe secret order matters", true);
    add(f.other, f.userId, "deployment notes in #other");
    add(f.other, f.userId, "café au lait", true);
    add(f.foreign, f.otherId, "deploy secrets of another user", true);
    await f.store.messages.flush();
    const search = async (match: string, extra = {}) =>
      texts(await f.store.messages.search.forUser(f.userId, { match, limit: 60, ...extra }));

    await t.step(
      "notifications are the highlighted messages, newest first, until read",
      async () => {
        const page = await f.store.messages.notifications.list(f.userId, 40);
        assertEquals(texts(page), ["café au lait", "safe secret order matters"]);
        assertEquals(page.messages[0].conversation_id, "#other");
        assertEquals(await f.store.messages.notifications.unread(f.userId), 2);
        await f.store.messages.notifications.markRead(f.userId);
        assertEquals(await f.store.messages.notifications.unread(f.userId), 0);
        assertEquals(await f.store.messages.notifications.unread(f.otherId), 1);
        add(f.test, f.userId, "ping me", true);
        assertEquals(await f.store.messages.notifications.unread(f.userId), 1);
      },
    );

    await t.step(
      "clearing a conversation removes its messages from history and search",
      async () => {
        await f.store.messages.clear(f.other);
        assertEquals(await search("deplo"), ["we deploy on friday"]);
        await f.store.conversations.remove(f.test);
        assertEquals(await search("deplo"), [], "deleting a conversation cleans the index");
      },
    );
  } finally {
    await done(f);
  }
});

Deno.test("history store: idle time merges the search index without changing results", async () => {
  const f = await fixture();
  try {
    // Sixty separately indexed commits leave sixty small index segments behind.
    for (let i = 0; i < 60; i++) {
      for (let j = 0; j < 10; j++) {
        f.store.messages.append({
          conversation: f.test,
          userId: f.userId,
          from: "alice",
          type: "private",
          text: `batch ${i} item ${j} ${j === 0 ? "needle" : "hay"}`,
        });
      }
      await f.store.messages.searchable();
    }
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(`${f.home}/search.db`);
    const pages = () =>
      (db.prepare(`SELECT count(*) AS n FROM ${userIndex(f.userId)}_data`).get() as {
        n: number;
      }).n;
    const before = pages();
    const found = async () =>
      texts(await f.store.messages.search.forUser(f.userId, { match: "needle", limit: 200 }))
        .length;
    assertEquals(await found(), 60);
    await f.store.messages.settled();
    assert(pages() < before, `index pages ${pages()} should be fewer than ${before}`);
    assertEquals(await found(), 60);
    db.close();
  } finally {
    await done(f);
  }
});

Deno.test("history store: long prefixes find the same rows whichever lookup is chosen", async () => {
  const f = await fixture();
  try {
    const add = (text: string) =>
      f.store.messages.append({
        conversation: f.test,
        userId: f.userId,
        from: "a",
        type: "private",
        text,
      });
    // 300 rows share the three-letter prefix "the"; few have "thermodynamics", many "them".
    for (let i = 0; i < 300; i++) {
      add(i % 100 === 0 ? `Thermodynamics lecture ${i}` : `tell them ${i}`);
    }
    add("the theory of thermal things");
    await f.store.messages.flush();
    const search = async (match: string, limit = 500) =>
      texts(await f.store.messages.search.forUser(f.userId, { match, limit }));
    // A rare long prefix under a common short one: looked up as the exact prefix.
    assertEquals(await search("thermody"), [
      "Thermodynamics lecture 200",
      "Thermodynamics lecture 100",
      "Thermodynamics lecture 0",
    ]);
    // A common long prefix: looked up by the short prefix and filtered.
    assertEquals((await search("them")).length, 297);
    const page = await f.store.messages.search.forUser(f.userId, { match: "them", limit: 10 });
    assertEquals(page.messages.length, 10);
    assertEquals(page.end, false);
    // Both rules still hold: word starts only, and every word must occur.
    assertEquals(await search("herm"), []);
    assertEquals(await search("therm theor"), ["the theory of thermal things"]);
    assertEquals(await search("tell 299"), ["tell them 299"]);
  } finally {
    await done(f);
  }
});

/** How many rows of conversation `conversation` the search index holds. */
async function indexed(f: Fixture, conversation: number): Promise<number> {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(`${f.home}/search.db`, { readOnly: true });
  const table = userIndex(f.userId);
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`)
      .get(`scope : "c${conversation}"`) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** FTS5's own check of the user's index; it throws when removals did not match what was added. */
async function integrityCheck(f: Fixture) {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(`${f.home}/search.db`);
  const table = userIndex(f.userId);
  try {
    db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 0)`);
  } finally {
    db.close();
  }
}

function say(f: Fixture, conversation: number, text: string) {
  f.store.messages.append({ conversation, userId: f.userId, from: "a", type: "private", text });
}

Deno.test("search index: catches up after a restart, rebuilds when its file is gone or damaged", async () => {
  let f = await fixture();
  const reopen = async () => {
    await f.store.close();
    f = { ...f, store: await openSqliteStore(f.home) };
  };
  try {
    for (let i = 0; i < 500; i++) say(f, f.test, `before restart ${i} walrus`);
    // Closed right after the commit: whatever the worker had not indexed, it does at start.
    await f.store.messages.flush();
    await reopen();
    const walrus = async () =>
      (await f.store.messages.search.forUser(f.userId, { match: "walrus", limit: 200 })).messages
        .length;
    assertEquals(await walrus(), 200);
    assertEquals(await indexed(f, f.test), 500);

    await f.store.close();
    await Deno.remove(`${f.home}/search.db`);
    f = { ...f, store: await openSqliteStore(f.home) };
    assertEquals(await walrus(), 200);
    assertEquals(await indexed(f, f.test), 500);

    // A damaged file is only an index: it is started over, not a reason to refuse to start.
    await f.store.close();
    await Deno.writeTextFile(`${f.home}/search.db`, "not a database ".repeat(1000));
    f = { ...f, store: await openSqliteStore(f.home) };
    assertEquals(await walrus(), 200);
    assertEquals(await indexed(f, f.test), 500);
  } finally {
    await done(f);
  }
});

Deno.test("search index: deleted messages leave it, and their ids are never reused", async () => {
  const f = await fixture();
  try {
    for (let i = 0; i < 50; i++) say(f, f.test, `old ${i} pelican`);
    for (let i = 0; i < 5; i++) say(f, f.other, `kept ${i} pelican`);
    await f.store.messages.settled();
    assertEquals(await indexed(f, f.test), 50);
    await f.store.messages.clear(f.test);
    // Deleted rows vanish from results at once; the index entries go in the background.
    const pelicans = async () =>
      texts(await f.store.messages.search.forUser(f.userId, { match: "pelican", limit: 100 }));
    assertEquals((await pelicans()).length, 5);
    await f.store.messages.settled();
    assertEquals(await indexed(f, f.test), 0);
    assertEquals(await indexed(f, f.other), 5);
    await integrityCheck(f);

    // New messages after the deletion get new ids, so the indexer sees them as new.
    say(f, f.test, "new pelican");
    assertEquals((await pelicans())[0], "new pelican");
    assertEquals(await indexed(f, f.test), 1);
  } finally {
    await done(f);
  }
});

Deno.test("search index: one left from another database is rebuilt, not trusted", async () => {
  const f = await fixture();
  try {
    for (let i = 0; i < 30; i++) say(f, f.test, `yak ${i}`);
    await f.store.messages.settled();
    await f.store.close();
    // parley.db starts over (a restore, a mistake); search.db still claims 30 messages.
    for (const name of ["parley.db", "parley.db-wal", "parley.db-shm"]) {
      await Deno.remove(`${f.home}/${name}`).catch(() => {});
    }
    const g = await fixture(f.home);
    try {
      say(g, g.test, "emu");
      const search = async (match: string) =>
        texts(await g.store.messages.search.forUser(g.userId, { match, limit: 100 }));
      // A trusted stale index would map old entries onto the new rows with the same ids, and
      // would think the new rows indexed already.
      assertEquals(await search("yak"), []);
      assertEquals(await search("emu"), ["emu"]);
    } finally {
      await g.store.close();
    }
  } finally {
    await Deno.remove(f.home, { recursive: true });
  }
});

Deno.test("search index: a deleted user's index is dropped whole", async () => {
  const f = await fixture();
  try {
    for (let i = 0; i < 20; i++) {
      f.store.messages.append({
        conversation: f.foreign,
        userId: f.otherId,
        from: "o",
        type: "private",
        text: `theirs ${i}`,
      });
    }
    say(f, f.test, "mine");
    await f.store.messages.settled();
    const { DatabaseSync } = await import("node:sqlite");
    const tables = () => {
      const db = new DatabaseSync(`${f.home}/search.db`, { readOnly: true });
      try {
        return (db.prepare(
          "SELECT name FROM sqlite_master WHERE name LIKE 'fts_user_%' AND sql LIKE 'CREATE VIRTUAL%'",
        ).all() as { name: string }[]).map((r) => r.name).sort();
      } finally {
        db.close();
      }
    };
    assertEquals(tables(), [userIndex(f.userId), userIndex(f.otherId)].sort());
    assert(await f.store.users.remove(f.otherId));
    // The cascade is not announced; the worker's idle poll or the next write finds it.
    say(f, f.test, "nudge");
    await f.store.messages.settled();
    assertEquals(tables(), [userIndex(f.userId)]);
    assertEquals(
      texts(await f.store.messages.search.forUser(f.userId, { match: "mine", limit: 5 })),
      [
        "mine",
      ],
    );
  } finally {
    await done(f);
  }
});
