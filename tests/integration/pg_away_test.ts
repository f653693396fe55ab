/**
 * PostgreSQL away for a while, seen from the store: a query made meanwhile is refused at once
 * rather than held back by the client's reconnect delay, and one made once it is back is answered
 * at once.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startPostgres } from "../support/postgres.ts";
import { connectPg } from "../../store/pg/db.ts";

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
    // The client's own delay before it tries a lost connection again grew with each refusal, to
    // 20 s: the seventh query waited 3.6-7.3 s only to be refused, and queries made after a
    // minute's outage up to 20 s (the API's 503 late by as much, and the database's return seen
    // as late).
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
