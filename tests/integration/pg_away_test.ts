/**
 * PostgreSQL away for a while, seen from the store: a query made meanwhile is refused at once
 * rather than held back by the client's reconnect delay, one made once it is back is answered at
 * once, and closing the store does not wait for a database that does not come back.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { seedChannel, startPostgres } from "../support/postgres.ts";
import { connectPg } from "../../store/pg/db.ts";
import { openPgMessageStore } from "../../store/pg/messages.ts";

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((r) => timer = setTimeout(() => r(false), ms));
  const inTime = await Promise.race([p.then(() => true, () => true), late]);
  clearTimeout(timer);
  return inTime;
}

Deno.test("PostgreSQL away: each query is refused at once, and the first once back is answered", async () => {
  const pg = await startPostgres();
  const sql = connectPg(pg.url, 1);
  try {
    await sql`SELECT 1`;
    await pg.stop();
    // The client's default delay before it tries a lost connection again grows with each refusal
    // to 20 s: with it the seventh query waits 3.6-7.3 s only to be refused, and one made after a
    // minute's outage up to 20 s (the API's 503 as late, and the database's return seen as late).
    for (let i = 1; i <= 8; i++) {
      const refused = sql`SELECT 1`.then(() => "answered", (err) => err.code);
      assert(await settlesWithin(refused, 3000), `query ${i} was held back`);
      assertEquals(await refused, "ECONNREFUSED");
    }
    await pg.start();
    const answered = sql`SELECT 1 AS one`;
    assert(await settlesWithin(answered, 3000), "the first query once back was held back");
    assertEquals((await answered)[0].one, 1);
  } finally {
    await sql.end({ timeout: 1 });
    await pg.close();
  }
});

Deno.test("PostgreSQL away at the store's close: what waits for it is given up, the close ends", async () => {
  const pg = await startPostgres();
  const messages = await openPgMessageStore(pg.url);
  let closed: Promise<void> | undefined;
  try {
    const seeder = connectPg(pg.url, 1);
    const { userId, conversation } = await seedChannel(seeder, "a").finally(() => seeder.end());
    await pg.stop();
    // The conversation's first message reads its newest time and count first: that read waits
    // for the database, and the close waited for it while it waited for the close.
    const appended = messages.append({
      conversation,
      userId,
      from: "bob",
      type: "private",
      text: "said while the database was away",
    });
    closed = messages.close();
    assert(await settlesWithin(closed, 20_000), "the close waited for the database");
    await appended; // told lost (logged), not left pending
  } finally {
    if (!closed) await messages.close();
    await pg.close();
  }
});
