/**
 * Message retention on every backend: the oldest messages go in batches while writes go on,
 * search stops finding them, unread counts lose them, conversations stay; on PostgreSQL one node
 * prunes at a time; on SQLite the search index itself loses them.
 */
import { DatabaseSync } from "node:sqlite";
import { nowMicros } from "../../lib/time.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { forEachBackend, forEachStore, idleConnection } from "../support/backends.ts";
import { pruneBefore, startRetention } from "../../store/retention.ts";
import { sqliteBackend } from "../../store/sqlite/mod.ts";
import type { SqliteMessageStore } from "../../store/sqlite/messages/mod.ts";
import { userIndex } from "../../store/sqlite/search_file.ts";

const DAY = 86_400_000_000;
const OLD = 1_234;

forEachBackend("retention: old messages go, new ones and writes meanwhile stay", async (b, t) => {
  const userId = await b.user("r@example.com");
  const conn = await b.connection(userId, "irc-localhost");
  const chan = await b.conversation(conn, "#chan");
  const quiet = await b.conversation(conn, "#quiet");
  const now = nowMicros();
  const add = (conversation: number, text: string, ts?: number) =>
    b.messages.append({
      conversation,
      userId,
      from: "bob",
      type: "private",
      text,
      ts,
      unread: true,
    });
  for (let i = 0; i < OLD; i++) add(chan, `ancient word${i}`, now - 30 * DAY + i * 1000);
  for (let i = 0; i < 20; i++) add(quiet, `ancient quiet${i}`, now - 20 * DAY + i * 1000);
  for (let i = 0; i < 30; i++) add(chan, `recent word${i}`, now - DAY + i * 1000);
  await b.searchable();
  assertEquals(await b.unread(chan), OLD + 30);
  const found = async (match: string) =>
    (await b.messages.search.forUser(userId, { match, limit: 100 })).messages.length;
  assertEquals(await found("ancient"), 100, "found before pruning");

  const retention = b.messages.retention!;
  assert(retention, "the backend has the retention capability");
  let during = 0;
  let batches = 0;
  const deleted = await pruneBefore(retention, now - 10 * DAY, {
    batch: 100,
    pauseMs: 0,
    // A write between two batches: the writer's turn comes while the pass goes on.
    progress: () => void add(chan, `written meanwhile ${batches++}`).then(() => during++),
  });
  await b.searchable();

  await t.step("every message older than the limit went, in batches", () => {
    assertEquals(deleted, OLD + 20);
    assert(batches > 10, `${batches} batches`);
  });
  await t.step("newer messages and the writes made during the pass stay", async () => {
    const page = await b.messages.historyOf(chan, { limit: 200 });
    const texts = page.messages.map((m) => m.message);
    assertEquals(texts.filter((m) => m.startsWith("ancient")), []);
    assertEquals(texts.filter((m) => m.startsWith("recent")).length, 30);
    assertEquals(during, batches);
    assertEquals(texts.filter((m) => m.startsWith("written meanwhile")).length, batches);
  });
  await t.step("search no longer finds them", async () => {
    assertEquals(await found("ancient"), 0);
    assertEquals(await found("recent"), 30);
  });
  await t.step("unread counts lose the deleted; the conversations stay", async () => {
    assertEquals(await b.unread(chan), 30 + batches);
    assertEquals(await b.unread(quiet), 0);
    assertEquals((await b.messages.historyOf(quiet, { limit: 10 })).messages, []);
  });
  await t.step("a second pass finds nothing more to delete", async () => {
    assertEquals(await pruneBefore(retention, now - 10 * DAY, { pauseMs: 0 }), 0);
  });
  if (b.name === "postgres") {
    await t.step("one node prunes at a time: a second pass skips while one runs", async () => {
      let inner: boolean | undefined;
      const outer = await retention.exclusive!(async () => {
        inner = await retention.exclusive!(() => Promise.resolve());
      });
      assertEquals([outer, inner], [true, false]);
      assert(await retention.exclusive!(() => Promise.resolve()), "free again after the pass");
    });
  }
});

Deno.test("retention [sqlite]: the search index itself loses the deleted rows", async () => {
  const home = await Deno.makeTempDir({ prefix: "parley-retention-" });
  const store = await sqliteBackend.open(home);
  try {
    const { id: userId } = await store.users.create("s@example.com", "x", []);
    const conn = await store.connections.create({
      userId,
      connectionId: "irc-localhost",
      name: "localhost",
      url: "irc://127.0.0.1:6667?nick=me",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
    const { id: chan } = await store.conversations.ensure(conn.id, "#chan", "#chan");
    const now = nowMicros();
    for (let i = 0; i < 300; i++) {
      store.messages.append({
        conversation: chan,
        userId,
        from: "bob",
        type: "private",
        text: i < 200 ? `ancient ${i}` : `recent ${i}`,
        ts: now - (i < 200 ? 30 : 1) * DAY + i * 1000,
      });
    }
    const messages = store.messages as SqliteMessageStore;
    await messages.searchable();
    const index = new DatabaseSync(`${home}/search.db`, { readOnly: true });
    const table = userIndex(userId);
    const indexed = (word: string) =>
      (index.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`).get(
        `text : ${word}`,
      ) as { n: number }).n;
    assertEquals([indexed("ancient"), indexed("recent")], [200, 100]);
    assertEquals(await pruneBefore(messages.retention, now - 10 * DAY, { pauseMs: 0 }), 200);
    await messages.settled();
    assertEquals([indexed("ancient"), indexed("recent")], [0, 100]);
    index.close();
  } finally {
    await store.close();
    await Deno.remove(home, { recursive: true });
  }
});

forEachStore(
  "retention: the daemon's pass reads the setting, and the variable wins",
  async (store) => {
    const { id: userId } = await store.users.create("d@example.com", "x", []);
    const conn = await idleConnection(store, userId);
    const { id: chan } = await store.conversations.ensure(conn.id, "#chan", "#chan");
    const now = nowMicros();
    for (const [text, days] of [["year old", 365], ["month old", 30], ["day old", 1]] as const) {
      store.messages.append({
        conversation: chan,
        userId,
        from: "bob",
        type: "private",
        text,
        ts: now - days * DAY,
      });
    }
    await store.messages.flush();
    const left = async () =>
      (await store.messages.historyOf(chan, { limit: 10 })).messages.map((m) => m.message);
    const pass = async (config: { messageRetentionDays?: number }) => {
      const runner = startRetention(store, config, { firstMs: 3_600_000, pauseMs: 0 });
      try {
        return await runner.runNow();
      } finally {
        await runner.stop();
      }
    };
    // Kept forever by default, and by PARLEY_MESSAGE_RETENTION=0 whatever the setting says.
    assertEquals(await pass({}), 0);
    await store.settings.set({ message_retention: "12w" });
    assertEquals(await pass({ messageRetentionDays: 0 }), 0);
    assertEquals(await left(), ["year old", "month old", "day old"]);
    assertEquals(await pass({}), 1);
    assertEquals(await left(), ["month old", "day old"]);
    assertEquals(await pass({ messageRetentionDays: 7 }), 1);
    assertEquals(await left(), ["day old"]);
  },
);
