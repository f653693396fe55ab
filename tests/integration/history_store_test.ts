import { nowMicros } from "../../lib/time.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { openSqliteStore, type SqliteStore } from "../../store/mod.ts";
import type { MessageJson } from "../../store/message_types.ts";
import { parseMicros } from "../../lib/time.ts";
import { userIndex } from "../../store/search_file.ts";

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
  const conn = (userId: number) =>
    store.connections.create({
      userId,
      connectionId: "irc-localhost",
      name: "localhost",
      url: "irc://127.0.0.1:6667?nick=me",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
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

const T0 = Date.UTC(2026, 0, 1) * 1000;
const texts = (page: { messages: MessageJson[] }) => page.messages.map((m) => m.message);

Deno.test("history store: timestamps are unique and paging walks every message once", async (t) => {
  const f = await fixture();
  try {
    // 300 messages: runs of ten share one timestamp, as a fast channel in one second would.
    for (let i = 0; i < 300; i++) {
      f.store.messages.append({
        conversation: f.test,
        userId: f.userId,
        from: "alice",
        type: "private",
        text: `message ${i}`,
        ts: T0 + Math.floor(i / 10) * 1_000_000,
      });
    }
    await f.store.messages.flush();

    await t.step(
      "the newest page comes first, oldest message first, with a before cursor",
      async () => {
        const page = await f.store.messages.historyOf(f.test, { limit: 60 });
        assertEquals(page.messages.length, 60);
        assertEquals(page.messages[0].message, "message 240");
        assertEquals(page.messages[59].message, "message 299");
        assert(page.before !== undefined);
        assertEquals(page.after, undefined, "nothing is newer");
        const ts = page.messages.map((m) => parseMicros(m.ts)!);
        for (let i = 1; i < ts.length; i++) assert(ts[i] > ts[i - 1], "strictly increasing");
      },
    );

    await t.step("walking back with before returns each message exactly once", async () => {
      const seen: string[] = [];
      let before: number | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const page = await f.store.messages.historyOf(f.test, { limit: 47, before });
        seen.unshift(...texts(page));
        if (!page.before) break;
        before = parseMicros(page.before)!;
      }
      assertEquals(seen, Array.from({ length: 300 }, (_, i) => `message ${i}`));
    });

    await t.step("walking forward with after returns each message exactly once", async () => {
      const seen: string[] = [];
      let after = T0 - 1;
      for (let guard = 0; guard < 20; guard++) {
        const page = await f.store.messages.historyOf(f.test, { limit: 33, after });
        seen.push(...texts(page));
        if (!page.after) break;
        after = parseMicros(page.after)!;
      }
      assertEquals(seen, Array.from({ length: 300 }, (_, i) => `message ${i}`));
    });

    await t.step("around returns older and newer-or-equal messages with both cursors", async () => {
      const middle = await f.store.messages.historyOf(f.test, {
        limit: 1,
        after: T0 + 15_000_000 - 1,
      });
      const at = parseMicros(middle.messages[0].ts)!;
      assertEquals(middle.messages[0].message, "message 150");
      const page = await f.store.messages.historyOf(f.test, { limit: 5, around: at });
      assertEquals(
        texts(page),
        [145, 146, 147, 148, 149, 150, 151, 152, 153, 154].map((i) => `message ${i}`),
      );
      assert(page.before && page.after);
    });

    await t.step("a conversation's history holds only its own messages", async () => {
      const page = await f.store.messages.historyOf(f.other, { limit: 60 });
      assertEquals(page.messages, []);
      assertEquals(page.before, undefined);
    });
  } finally {
    await done(f);
  }
});

Deno.test("history store: match, search and notifications", async (t) => {
  const f = await fixture();
  // A millisecond apart, as messages arrive: a conversation's timestamps are unique at
  // millisecond resolution, so faster appends would be spread ahead per conversation and
  // "newest first" across conversations would depend on the spread.
  let at = nowMicros();
  const add = (
    conversation: number,
    userId: number,
    from: string,
    text: string,
    highlight = false,
  ) =>
    f.store.messages.append({
      conversation,
      userId,
      from,
      type: "private",
      text,
      highlight,
      ts: at += 1000,
    });
  try {
    add(f.test, f.userId, "alice", "we deploy on friday");
    add(f.test, f.userId, "bob", "the redeploy failed");
    add(f.test, f.userId, "alice", "my secretary knows");
    add(f.test, f.userId, "carol", "keep the secret safe, me");
    add(f.test, f.userId, "carol", "safe secret order matters", true);
    add(f.other, f.userId, "Dave", "deployment notes in #other");
    add(f.other, f.userId, "dave", "café au lait", true);
    add(f.foreign, f.otherId, "eve", "deploy secrets of another user", true);
    await f.store.messages.flush();
    const search = async (match: string, extra = {}) =>
      texts(await f.store.messages.search.forUser(f.userId, { match, limit: 60, ...extra }));

    await t.step("a word matches the start of words, not their middle", async () => {
      assertEquals(await search("deplo"), ["deployment notes in #other", "we deploy on friday"]);
      assertEquals(await search("DEPLOY friday"), ["we deploy on friday"]);
    });

    await t.step("quoted words match whole words in order", async () => {
      assertEquals(await search('"secret"'), [
        "safe secret order matters",
        "keep the secret safe, me",
      ]);
      assertEquals(await search('"secret safe"'), ["keep the secret safe, me"]);
      assertEquals(await search("secret"), [
        "safe secret order matters",
        "keep the secret safe, me",
        "my secretary knows",
      ]);
    });

    await t.step("#name restricts to a conversation and @nick to a sender", async () => {
      assertEquals(await search("deplo #other"), ["deployment notes in #other"]);
      assertEquals(await search("deplo #TEST"), ["we deploy on friday"]);
      assertEquals(await search("@carol"), [
        "safe secret order matters",
        "keep the secret safe, me",
      ]);
      assertEquals(await search("@DAVE"), ["café au lait", "deployment notes in #other"]);
      assertEquals(await search("secret", { from: "carol" }), [
        "safe secret order matters",
        "keep the secret safe, me",
      ]);
      assertEquals(await search("deplo", { conversationId: "#test" }), ["we deploy on friday"]);
      assertEquals(await search("deplo", { connectionId: "irc-nope" }), []);
    });

    await t.step("diacritics and case fold; short words match whole words", async () => {
      assertEquals(await search("cafe"), ["café au lait"]);
      assertEquals(await search("me"), ["keep the secret safe, me"]);
    });

    await t.step(
      "results carry their connection and conversation, newest first, and end",
      async () => {
        const page = await f.store.messages.search.forUser(f.userId, { match: "secret", limit: 2 });
        assertEquals(page.messages.map((m) => m.conversation_id), ["#test", "#test"]);
        assertEquals(page.messages[0].connection_id, "irc-localhost");
        assertEquals(page.end, false);
        const rest = await f.store.messages.search.forUser(f.userId, {
          match: "secret",
          limit: 2,
          before: parseMicros(page.before!)!,
        });
        assertEquals(texts(rest), ["my secretary knows"]);
        assertEquals(rest.end, true);
      },
    );

    await t.step("another user's messages never appear", async () => {
      assertEquals(await search("another"), []);
      assertEquals((await search("deplo")).length, 2);
    });

    await t.step("no criteria or nothing searchable finds nothing", async () => {
      assertEquals(await search(""), []);
      assertEquals(await search("*** ---"), []);
    });

    await t.step("hostile input never reaches FTS5 as syntax", async () => {
      for (
        const evil of [
          '"',
          '"""',
          "*",
          "NEAR(",
          "NEAR(a b)",
          "AND",
          "OR",
          "NOT",
          "a OR b",
          "-",
          "^",
          "(",
          ")",
          ":",
          "text:x",
          '"unbalanced',
          "a\u0000b",
          "x ".repeat(500_000),
        ]
      ) {
        const page = await f.store.messages.search.forUser(f.userId, { match: evil, limit: 10 });
        assert(Array.isArray(page.messages), evil.slice(0, 20));
        const hist = await f.store.messages.search.inConversation(f.test, evil, { limit: 10 });
        assert(Array.isArray(hist.messages), evil.slice(0, 20));
      }
      assertEquals(await search("AND"), [], "operators are words");
    });

    await t.step("match filters a conversation's history with the same rules", async () => {
      const page = await f.store.messages.search.inConversation(f.test, "secret", { limit: 60 });
      assertEquals(texts(page), [
        "my secretary knows",
        "keep the secret safe, me",
        "safe secret order matters",
      ]);
      const quoted = await f.store.messages.search.inConversation(f.test, '"secret"', {
        limit: 60,
      });
      assertEquals(quoted.messages.length, 2);
    });

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
        add(f.test, f.userId, "alice", "ping me", true);
        assertEquals(await f.store.messages.notifications.unread(f.userId), 1);
      },
    );

    await t.step(
      "clearing a conversation removes its messages from history and search",
      async () => {
        await f.store.messages.clear(f.other);
        assertEquals((await f.store.messages.historyOf(f.other, { limit: 60 })).messages, []);
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
