/**
 * PostgreSQL's search walks a user's id buckets newest first (store/pg/search.ts): across bucket
 * boundaries and gaps the results are exactly newest first by id, and another user's rows, in the
 * same buckets, never show.
 */
import { assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { openPgStore } from "../../store/pg/mod.ts";

Deno.test("pg search: buckets newest first, across boundaries and gaps", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(await pg.database());
  try {
    const conversation = async (email: string) => {
      const user = await store.users.create(email, "x", []);
      const conn = await store.connections.create({
        userId: user.id,
        connectionId: "irc-x",
        name: "x",
        url: "irc://x.example",
        onConnectCommands: [],
        wantedState: "disconnected",
      });
      return { userId: user.id, id: (await store.conversations.ensure(conn.id, "#x", "#x")).id };
    };
    const me = await conversation("me@example.org");
    const other = await conversation("other@example.org");
    let ts = 1_700_000_000_000_000;
    const say = async (who: { userId: number; id: number }, text: string) => {
      await store.messages.append({
        conversation: who.id,
        userId: who.userId,
        from: "bob",
        type: "private",
        text,
        ts: ts += 1000,
      });
      await store.messages.flush();
    };
    const jump = (to: number) => store.sql`SELECT setval('messages_id_seq', ${to})`;
    const said: string[] = [];
    // Bucket 0, then across the 2/3 boundary, then far ahead in bucket 9 (buckets 4-8 empty).
    for (let i = 0; i < 3; i++) said.push(`kettle ${said.length}`);
    for (const t of said) await say(me, t);
    await say(other, "kettle of someone else");
    await jump(3 * 65536 - 4);
    for (let i = 0; i < 8; i++) {
      said.push(`kettle ${said.length}`);
      await say(me, said.at(-1)!);
      if (i === 4) await say(other, "kettle of someone else");
    }
    await jump(9 * 65536 + 10);
    for (let i = 0; i < 2; i++) {
      said.push(`kettle ${said.length}`);
      await say(me, said.at(-1)!);
    }
    const newestFirst = [...said].reverse();
    const all = await store.messages.search.forUser(me.userId, { match: "kettle", limit: 100 });
    assertEquals(all.messages.map((m) => m.message), newestFirst);
    const page = await store.messages.search.forUser(me.userId, { match: "kettle", limit: 5 });
    assertEquals(page.messages.map((m) => m.message), newestFirst.slice(0, 5));
    assertEquals(page.end, false);
    const inChannel = await store.messages.search.forUser(me.userId, {
      match: "kettle #x",
      limit: 4,
    });
    assertEquals(inChannel.messages.map((m) => m.message), newestFirst.slice(0, 4));
  } finally {
    await store.close();
    await pg.close();
  }
});
