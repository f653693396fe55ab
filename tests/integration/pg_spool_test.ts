/**
 * PostgreSQL away at a stop: the messages the writer holds for it are kept in the data folder and
 * stored at the next start, each at its own time, counted unread as they were; nothing twice.
 */
import { assertEquals } from "../support/assert.ts";
import { seedChannel, startPostgres } from "../support/postgres.ts";
import type { PgStore } from "../../store/pg/mod.ts";
import { openStore } from "../../store/mod.ts";
import { spoolDir } from "../../store/pg/spool.ts";
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

    await t.step(
      "a message whose commit went through is not stored twice; a bad line is skipped",
      async () => {
        const [{ id }] = await store
          .sql`SELECT id FROM messages WHERE conversation = ${a.conversation}
        ORDER BY ts DESC LIMIT 1`;
        await store.close();
        Deno.mkdirSync(dir, { recursive: true });
        const kept = (text: string, more: object) =>
          JSON.stringify({
            conversation: a.conversation,
            userId: a.userId,
            from: "bob",
            type: "private",
            text,
            ts: t0 + 10_000,
            ...more,
          });
        Deno.writeTextFileSync(
          `${dir}/1-1.jsonl`,
          [kept("three", { id: Number(id) }), "{not json", kept("four", { id: 999_999_999 })]
            .join("\n") + "\n",
        );
        store = await open();
        assertEquals(await texts(store, a.conversation), ["before", "one", "two", "three", "four"]);
        assertEquals(files(dir), []);
      },
    );
  } finally {
    await store.close().catch(() => {});
    await pg.close();
    await Deno.remove(home, { recursive: true });
  }
});
