/**
 * The shared table groups' SQLite executor (store/sqlite/tables.ts): a transaction that throws
 * leaves nothing; one inside a transaction of hand-written code (the importer's) is a savepoint
 * of it; flags are stored as 1/0; a prepared query fills in each call's arguments.
 */
import { DatabaseSync } from "node:sqlite";
import type { Expression } from "kysely";
import { assertEquals, assertRejects } from "../../../support/assert.ts";
import { sqliteTables } from "../../../../store/sqlite/tables.ts";
import { prepared } from "../../../../store/tables/db.ts";
import { flag } from "../../../../store/tables/schema.ts";
import { DomainError } from "../../../../lib/errors.ts";

function open() {
  const db = new DatabaseSync(":memory:");
  db.exec(`CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE push_prefs (user_id INTEGER PRIMARY KEY, auto_away INTEGER NOT NULL)`);
  return { db, tables: sqliteTables(db) };
}

Deno.test("a transaction that throws is rolled back; the next one runs", async () => {
  const { tables } = open();
  const { q } = tables;
  await assertRejects(() =>
    tables.transaction(async (tx) => {
      await tx.run(q.insertInto("settings").values({ key: "a", value: "1" }));
      throw new Error("no");
    })
  );
  await tables.transaction((tx) =>
    tx.run(q.insertInto("settings").values({ key: "b", value: "2" }))
  );
  assertEquals(
    (await tables.all(q.selectFrom("settings").select("key"))).map((r) => r.key),
    ["b"],
  );
});

Deno.test("inside hand-written code's transaction, a transaction is its savepoint", async () => {
  const { db, tables } = open();
  const { q } = tables;
  db.exec("BEGIN");
  await tables.transaction((tx) =>
    tx.run(q.insertInto("settings").values({ key: "a", value: "1" }))
  );
  await assertRejects(() =>
    tables.transaction(async (tx) => {
      await tx.run(q.insertInto("settings").values({ key: "b", value: "2" }));
      throw new Error("no");
    })
  );
  assertEquals(db.isTransaction, true, "the outer transaction is the outer code's to end");
  db.exec("COMMIT");
  assertEquals(
    (await tables.all(q.selectFrom("settings").select("key"))).map((r) => r.key),
    ["a"],
  );
});

Deno.test("flags are stored as 1 and 0 and read back as booleans", async () => {
  const { db, tables } = open();
  const { q } = tables;
  await tables.run(
    q.insertInto("push_prefs").values([{ user_id: 1, auto_away: true }, {
      user_id: 2,
      auto_away: false,
    }]),
  );
  assertEquals(
    db.prepare("SELECT auto_away FROM push_prefs ORDER BY user_id").all(),
    [
      { auto_away: 1 },
      { auto_away: 0 },
    ].map((r) => Object.assign(Object.create(null), r)),
  );
  const on = await tables.all(
    q.selectFrom("push_prefs").select("user_id").where("auto_away", "=", true),
  );
  assertEquals(on.map((r) => r.user_id), [1]);
  const row = await tables.first(
    q.selectFrom("push_prefs").select("auto_away").where("user_id", "=", 2),
  );
  assertEquals(flag(row!.auto_away), false);
});

Deno.test("a prepared query is compiled once and takes each call's arguments", async () => {
  const { tables } = open();
  const { q } = tables;
  await tables.run(
    q.insertInto("settings").values([{ key: "a", value: "1" }, { key: "b", value: "2" }]),
  );
  const byKey = prepared((key: Expression<string>) =>
    q.selectFrom("settings").select("value").where("key", "=", key)
  );
  assertEquals(byKey("a").compile().sql, byKey("b").compile().sql);
  assertEquals((await tables.first(byKey("a")))?.value, "1");
  assertEquals((await tables.first(byKey("b")))?.value, "2");
  assertEquals(await tables.first(byKey("c")), undefined);
});

Deno.test("a write the disk refuses is told as the server's full disk, and nothing is kept", async () => {
  const { db, tables } = open();
  const { q } = tables;
  await tables.run(q.insertInto("settings").values({ key: "kept", value: "1" }));
  const pages = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages}`); // SQLite's own SQLITE_FULL past this size
  const big = "x".repeat(100_000);
  for (
    const write of [
      () => tables.run(q.insertInto("settings").values({ key: "alone", value: big })),
      () =>
        tables.transaction(async (tx) => {
          await tx.run(q.insertInto("settings").values({ key: "small", value: "2" }));
          await tx.run(q.insertInto("settings").values({ key: "in a transaction", value: big }));
        }),
    ]
  ) {
    const err = await assertRejects(write);
    assertEquals(
      [err instanceof DomainError && err.kind, err.message],
      ["unavailable", "The server's disk is full: nothing was saved. Try again later."],
    );
  }
  assertEquals(db.isTransaction, false);
  assertEquals(
    (await tables.all(q.selectFrom("settings").select("key"))).map((r) => r.key),
    ["kept"],
  );
});
