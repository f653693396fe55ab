/**
 * PostgreSQL away at a stop: the messages the writer holds for it are kept in the data folder and
 * stored at the next start, each at its own time, counted unread as they were; nothing twice.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { seedChannel, startPostgres } from "../support/postgres.ts";
import type { PgStore } from "../../store/pg/mod.ts";
import { openStore } from "../../store/mod.ts";
import { spoolDir, writeSpool } from "../../store/pg/spool.ts";
import { startServer } from "../support/server.ts";
import { ApiClient } from "../support/api.ts";
import { poll } from "../support/poll.ts";
import postgres from "postgres";
import { formatMicros } from "../../protocol/time.ts";

const texts = async (store: PgStore, conversation: number) =>
  (await store.messages.historyOf(conversation, { limit: 20 })).messages.map((m) => m.message);
const unreadOf = async (store: PgStore, conversation: number) =>
  (await store.sql`SELECT unread FROM conversations WHERE id = ${conversation}`)[0].unread;
const files = (dir: string) => {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
};

Deno.test("PostgreSQL away at a stop: held messages kept in the data folder, stored at the next start", async (t) => {
  const pg = await startPostgres();
  const home = await Deno.makeTempDir({ prefix: "parley-spool-" });
  const dir = spoolDir(home);
  // As the daemon opens it.
  const open = async () => await openStore(home, pg.url) as PgStore;
  let store = await open();
  try {
    const a = await seedChannel(store.sql, "a");
    const b = await seedChannel(store.sql, "b");
    // Microseconds in whole milliseconds: the writer's timestamps are.
    const t0 = Math.floor(Date.now() / 1000) * 1_000_000;

    await t.step("a stop with the database away writes them to one private file", async () => {
      await store.messages.append({
        conversation: a.conversation,
        userId: a.userId,
        from: "bob",
        type: "private",
        text: "before",
        ts: t0 - 1000,
        unread: true,
      });
      await store.messages.flush();
      await pg.stop();
      for (const [i, text] of ["one", "two", "three"].entries()) {
        void store.messages.append({
          conversation: a.conversation,
          userId: a.userId,
          from: "bob",
          type: "private",
          text,
          ts: t0 + i * 1000,
          unread: true,
          highlight: i === 1,
        });
      }
      // b's first message waits for its conversation's first read, which waits for the database.
      void store.messages.append({
        conversation: b.conversation,
        userId: b.userId,
        from: "carol",
        type: "notice",
        text: "first",
        ts: t0,
      });
      await store.close();
      const names = files(dir);
      assertEquals(names.length, 1, `one file: ${names}`);
      assertEquals(Deno.statSync(`${dir}/${names[0]}`).mode! & 0o777, 0o600);
      const lines = Deno.readTextFileSync(`${dir}/${names[0]}`).trim().split("\n");
      assertEquals(lines.length, 4);
    });

    await t.step("the next start stores them at their own times, and the file goes", async () => {
      await pg.start();
      store = await open();
      assertEquals(files(dir).length, 1, "opening alone stores nothing: the daemon asks");
      assertEquals(await store.messages.storeHeld!(home), 4);
      assertEquals(files(dir), []);
      assertEquals(await texts(store, a.conversation), ["before", "one", "two", "three"]);
      const page = await store.messages.historyOf(a.conversation, { limit: 20 });
      assertEquals(
        page.messages.slice(1).map((m) => m.ts),
        [0, 1, 2].map((i) => formatMicros(t0 + i * 1000)),
      );
      assertEquals(page.messages.map((m) => !!m.highlight), [false, false, true, false]);
      assertEquals(await unreadOf(store, a.conversation), 4, "counted unread once each");
      assertEquals(await texts(store, b.conversation), ["first"]);
      assertEquals(await unreadOf(store, b.conversation), 0, "it did not count");
    });

    const kept = (text: string, more: object = {}) =>
      JSON.stringify({
        conversation: a.conversation,
        userId: a.userId,
        from: "bob",
        type: "private",
        text,
        ts: t0 + 10_000,
        ...more,
      });
    const writeFile = (name: string, lines: string[]) => {
      Deno.mkdirSync(dir, { recursive: true });
      Deno.writeTextFileSync(`${dir}/${name}`, lines.join("\n") + "\n");
    };

    await t.step(
      "a message stored already is not stored twice; a bad line is skipped",
      async () => {
        const [{ id }] = await store.sql`SELECT id FROM messages
        WHERE conversation = ${a.conversation} ORDER BY ts DESC LIMIT 1`;
        writeFile("1-1-0.jsonl", [
          kept("three", { id: Number(id) }),
          "{not json",
          kept("four", { id: 999_999_999 }),
          // The same message twice under one id (spooled again by a stop during a replay).
          kept("five", { id: 999_999_998 }),
          kept("five", { id: 999_999_998 }),
        ]);
        assertEquals(await store.messages.storeHeld!(home), 3, "all but the one stored");
        assertEquals(await texts(store, a.conversation), [
          "before",
          "one",
          "two",
          "three",
          "four",
          "five",
        ]);
        assertEquals(files(dir), []);
      },
    );

    await t.step("a replay the database does not answer leaves its file for the next", async () => {
      writeFile("2-1-0.jsonl", [kept("six"), kept("seven")]);
      await pg.stop();
      const failed = await store.messages.storeHeld!(home).then(() => "", (e) => String(e));
      assert(failed !== "", "it did not pretend to be done");
      assertEquals(files(dir), ["2-1-0.jsonl"], "the file stays");
      await pg.start();
      assertEquals(await store.messages.storeHeld!(home), 2);
      assertEquals((await texts(store, a.conversation)).slice(-2), ["six", "seven"]);
      assertEquals(files(dir), []);
    });

    await t.step("a file that cannot be read is set aside as .bad, the others stored", async () => {
      // A link to a folder: no user, root included, reads it as a file.
      Deno.mkdirSync(`${home}/elsewhere`);
      Deno.symlinkSync(`${home}/elsewhere`, `${dir}/3-1-0.jsonl`);
      writeFile("4-1-0.jsonl", [kept("eight")]);
      assertEquals(await store.messages.storeHeld!(home), 1);
      assertEquals(files(dir), ["3-1-0.jsonl.bad"]);
      assertEquals((await texts(store, a.conversation)).at(-1), "eight");
    });
  } finally {
    await store.close().catch(() => {});
    await pg.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the daemon stores the held messages of its data folder when it starts", async () => {
  const pg = await startPostgres();
  const server = await startServer({ env: { PARLEY_DATABASE_URL: pg.url } });
  try {
    const api = new ApiClient(server.url);
    await api.register("held@example.com");
    const made = await api.post("/api/connections", {
      url: "irc://127.0.0.1:1?nick=held",
      conversation_id: "#a",
    });
    const cid = made.body.connection_id as string;
    assertEquals(await server.stop(), 0);
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    const [row] = await sql`SELECT c.id, c.connection FROM conversations c
      WHERE c.conversation_id = '#a'`;
    const [owner] = await sql`SELECT user_id FROM connections WHERE id = ${row.connection}`;
    await sql.end();
    writeSpool(spoolDir(server.home), [{
      conversation: Number(row.id),
      userId: Number(owner.user_id),
      from: "bob",
      type: "private",
      text: "kept across the restart",
      ts: Date.now() * 1000,
      unread: true,
    }]);
    await server.restart();
    const path = `/api/connection/${cid}/conversation/${encodeURIComponent("#a")}/messages`;
    await poll(
      "the held message stored",
      async () =>
        ((await api.get(path)).body.messages ?? []).some((m: { message: string }) =>
          m.message === "kept across the restart"
        ),
    );
    // The file goes once its messages are committed: a moment after they can be read.
    await poll("the held messages' file removed", () => files(spoolDir(server.home)).length === 0);
  } finally {
    await server.close();
    await pg.close();
  }
});
