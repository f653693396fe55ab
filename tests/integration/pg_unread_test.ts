/**
 * On PostgreSQL the writer keeps each conversation's unread count in memory once read (a channel
 * line counts in hundreds of conversations). The count an `unread` event tells must follow every
 * count set outright: mark as read and a read marker, on the writer's own node and on another
 * node sharing the database; and a line counted in hundreds of conversations at once is stored
 * and counted right, in batches (none falls back to one row at a time). A count set while a node
 * was not listening is read when it listens again.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { poll } from "../support/poll.ts";
import { endListening, startPostgres } from "../support/postgres.ts";
import { idleConnection } from "../support/backends.ts";
import { openPgStore, type PgStore } from "../../store/pg/mod.ts";
import postgres from "postgres";

async function conversationOf(store: PgStore, n: number) {
  const user = await store.users.create(`u${n}@example.org`, "x", []);
  const conn = await idleConnection(store, user.id, "irc-example", "example");
  const conv = await store.conversations.ensure(conn.id, "#talk", "#talk");
  return { userId: user.id, connection: conn.id, conversation: conv.id };
}

const line = (c: { userId: number; conversation: number }, text: string) => ({
  conversation: c.conversation,
  userId: c.userId,
  from: "bob",
  type: "private" as const,
  text,
  unread: true,
});

Deno.test("PostgreSQL: the unread count told follows mark-as-read and read markers, on every node", async () => {
  const pg = await startPostgres();
  const a = await openPgStore(pg.url);
  const b = await openPgStore(pg.url);
  try {
    const c = await conversationOf(a, 1);
    const counted = async (text: string) => (await a.messages.append(line(c, text))).unread;
    assertEquals([await counted("1"), await counted("2"), await counted("3")], [1, 2, 3]);
    await a.messages.flush();
    assertEquals(await counted("4"), 4, "counting goes on across batches");

    // Read on the writer's own node.
    await a.conversations.markRead(c.conversation);
    assertEquals(await counted("5"), 1, "after mark-as-read here");
    assertEquals(await counted("6"), 2);

    // Read on another node: its notification reaches this node's writer.
    await a.messages.flush();
    await b.conversations.markRead(c.conversation);
    await poll("node a told", () => a.messages.unread.count(c.conversation) === 0);
    assertEquals(await counted("7"), 1, "after mark-as-read on another node");

    // A whole connection read on another node.
    await counted("8");
    await a.messages.flush();
    await b.conversations.markConnectionRead(c.connection);
    await poll(
      "node a told of the connection",
      () => a.messages.unread.count(c.conversation) === 0,
    );
    assertEquals(await counted("9"), 1);
    assertEquals(await counted("9b"), 2);

    // A read marker on another node sets the count to what came after it.
    await a.messages.flush();
    const [{ newest }] = await a.sql`SELECT max(ts) AS newest FROM messages
      WHERE conversation = ${c.conversation}`;
    const marker = await b.messages.history.markRead(c.conversation, newest - 1);
    assertEquals(marker?.unread, 1);
    await poll("node a told of the marker", () => a.messages.unread.count(c.conversation) === 1);
    assertEquals(await counted("10"), 2);
    await a.messages.flush();
    const [stored] = await a.sql`SELECT unread FROM conversations WHERE id = ${c.conversation}`;
    assertEquals(stored.unread, 2, "the stored count agrees with the one told");
  } finally {
    await b.close();
    await a.close();
    await pg.close();
  }
});

Deno.test("PostgreSQL: a line counted in 300 conversations at once, 50 times", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  const warned: string[] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => void warned.push(args.join(" "));
  try {
    const members = [];
    for (let i = 0; i < 300; i++) members.push(await conversationOf(store, i));
    // Each member's connection takes its lines one at a time, all of them side by side.
    const told = await Promise.all(members.map(async (m) => {
      const counts: (number | undefined)[] = [];
      for (let i = 0; i < 50; i++) {
        counts.push((await store.messages.append(line(m, `${i}`))).unread);
      }
      return counts;
    }));
    const expected = Array.from({ length: 50 }, (_, i) => i + 1);
    for (const counts of told) assertEquals(counts, expected);
    await store.messages.flush();
    const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM messages`;
    assertEquals(n, 300 * 50);
    const wrong = await store.sql`SELECT id FROM conversations WHERE unread <> 50`;
    assertEquals(wrong.length, 0);
    assert(
      !warned.some((w) => w.includes("one by one")),
      `a batch fell back to one row at a time: ${warned.join("\n")}`,
    );
  } finally {
    console.error = consoleError;
    await store.close();
    await pg.close();
  }
});

Deno.test("PostgreSQL: a conversation is read with the writer's count, without waiting for it", async () => {
  const pg = await startPostgres();
  const store = await openPgStore(pg.url);
  let release = () => {};
  let locked: Promise<unknown> = Promise.resolve();
  try {
    const c = await conversationOf(store, 1);
    const other = await conversationOf(store, 2);
    await store.messages.append(line(c, "first"));
    await store.messages.flush();
    // Another session holds the messages table: the writer's next batch cannot be written.
    const released = new Promise<void>((r) => release = r);
    locked = store.sql.begin(async (tx) => {
      await tx`LOCK TABLE messages IN SHARE MODE`;
      await released;
    });
    await poll(
      "the lock taken",
      async () =>
        (await store.sql`SELECT 1 FROM pg_locks WHERE relation = 'messages'::regclass
          AND mode = 'ShareLock' AND granted`).length > 0,
    );
    assertEquals((await store.messages.append(line(c, "second"))).unread, 2);
    await store.messages.append(line(other, "elsewhere"));
    // The batch is committed (and waits on the lock) once its window ends.
    await poll(
      "the batch waiting",
      async () =>
        (await store.sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'
          AND query LIKE 'INSERT INTO messages%'`).length > 0,
    );
    // Each read settles while the lock still holds the batch (one that waited for the writer
    // would only settle after the release below).
    let read: { unread?: number; listed?: number } | undefined;
    (async () => {
      const conv = await store.conversations.get(c.connection, "#talk");
      const [listed] = await store.conversations.listForConnection(c.connection);
      read = { unread: conv?.unread, listed: listed?.unread };
    })().catch(() => {}); // a read still waiting when the store closes
    await poll("the reads answered while the writer waits", () => read);
    assertEquals(read, { unread: 2, listed: 2 }, "the count with the line not yet written");
    release();
    await locked;
    await store.messages.flush();
    const [{ unread }] = await store
      .sql`SELECT unread FROM conversations WHERE id = ${c.conversation}`;
    assertEquals(unread, 2);
  } finally {
    release();
    await locked;
    await store.close();
    await pg.close();
  }
});

Deno.test("PostgreSQL: a count set while a node was not listening is read when it listens again", async () => {
  const pg = await startPostgres();
  const a = await openPgStore(pg.url);
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const c = await conversationOf(a, 1);
    const counted = async (text: string) => (await a.messages.append(line(c, text))).unread;
    assertEquals([await counted("1"), await counted("2")], [1, 2]);
    await a.messages.flush();
    // Marked as read on another node while this one's listening session was down: its word
    // reached nobody; only the stored count says it.
    await admin`UPDATE conversations SET unread = 0 WHERE id = ${c.conversation}`;
    const pid = await endListening(admin);
    await poll(
      "listening again",
      async () =>
        (await admin`SELECT 1 FROM pg_stat_activity WHERE query ~* '^listen ' AND pid <> ${pid}`)
          .length > 0,
    );
    // Without the stored count read again, the next line is told as the third unread.
    await poll(
      "the stored count read again",
      () => a.messages.unread.count(c.conversation) === 0,
    );
    assertEquals(await counted("after"), 1);
  } finally {
    await admin.end();
    await a.close();
    await pg.close();
  }
});
