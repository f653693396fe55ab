import { assertEquals } from "../../../../support/assert.ts";
import { openDatabase } from "../../../../../store/sqlite/db.ts";
import { migrate, sqliteMigrations } from "../../../../../store/sqlite/migrate.ts";
import { timestamps } from "../../../../../store/sqlite/messages/timestamps.ts";

const T = Date.UTC(2026, 0, 1) * 1000;

async function fresh() {
  const db = openDatabase(":memory:");
  migrate(db, await sqliteMigrations());
  let commits = 0;
  const uniqueTs = timestamps(db, () => commits++);
  return { db, uniqueTs, commits: () => commits };
}

Deno.test("timestamps: a burst spread far ahead of the clock stays in order without probing", async () => {
  const { db, uniqueTs, commits } = await fresh();
  // 5,000 lines arriving in one moment: spread a millisecond apart, 5 s ahead of the clock.
  const got = Array.from({ length: 5000 }, () => uniqueTs(1, T));
  assertEquals(got, got.map((_, i) => T + i * 1000));
  // Each line behind the run's newest by more than a second once looked for a free millisecond
  // in the past: a commit of the writer and 100 lookups per line.
  assertEquals(commits(), 0);
  db.close();
});

Deno.test("timestamps: a replay older than the run still keeps its own time", async () => {
  const { db, uniqueTs, commits } = await fresh();
  for (let i = 0; i < 3000; i++) uniqueTs(1, T);
  const old = T - 3_600_000_000; // an hour before the run began
  assertEquals(uniqueTs(1, old), old);
  assertEquals(commits(), 1);
  db.close();
});
