import { assertEquals, assertThrows } from "../support/assert.ts";
import { DatabaseSync } from "node:sqlite";
import { loadMigrations, migrate } from "../../store/migrate.ts";

Deno.test("migrations: applied in order, once, each in a transaction", () => {
  const db = new DatabaseSync(":memory:");
  const ms = [
    { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER)" },
    { version: 2, name: "b", sql: "CREATE TABLE b (y INTEGER)" },
  ];
  assertEquals(migrate(db, ms), [1, 2]);
  assertEquals(migrate(db, ms), []);
  const more = [...ms, { version: 3, name: "c", sql: "CREATE TABLE c (z INTEGER)" }];
  assertEquals(migrate(db, more), [3]);
  db.close();
});

Deno.test("migrations: a failing migration leaves nothing half-done", () => {
  const db = new DatabaseSync(":memory:");
  const bad = [{
    version: 1,
    name: "bad",
    sql: "CREATE TABLE t (x INTEGER); INSERT INTO nope VALUES (1);",
  }];
  assertThrows(() => migrate(db, bad));
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 't'").all();
  assertEquals(tables.length, 0);
  assertEquals(
    (db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n,
    0,
  );
  db.close();
});

Deno.test("migrations: the shipped files are numbered without gaps and apply cleanly", async () => {
  const ms = await loadMigrations();
  assertEquals(ms.map((m) => m.version), ms.map((_, i) => i + 1));
  const db = new DatabaseSync(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  assertEquals(migrate(db, ms).length, ms.length);
  db.close();
});
