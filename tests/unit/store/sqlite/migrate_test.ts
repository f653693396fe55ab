import { assertEquals, assertThrows } from "../../../support/assert.ts";
import { DatabaseSync } from "node:sqlite";
import { migrate, sqliteMigrations } from "../../../../store/sqlite/migrate.ts";

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
  const ms = await sqliteMigrations();
  assertEquals(ms.map((m) => m.version), ms.map((_, i) => i + 1));
  const db = new DatabaseSync(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  assertEquals(migrate(db, ms).length, ms.length);
  db.close();
});

Deno.test("migrations: times stored before server times were checked come back into range", async () => {
  const ms = await sqliteMigrations();
  const db = new DatabaseSync(":memory:");
  const sane = ms.findIndex((m) => m.name === "sane_timestamps");
  migrate(db, ms.slice(0, sane));
  db.exec(`
    INSERT INTO users (id, email, password_hash, registered) VALUES (1, 'a@b.c', 'x', 0);
    INSERT INTO connections (id, user_id, connection_id, name, url, created)
      VALUES (1, 1, 'irc-x', 'x', 'irc://x', 0);
    INSERT INTO conversations (id, connection, conversation_id, name, last_read, created)
      VALUES (1, 1, '#a', '#a', 33000000000000000, 0);
    INSERT INTO notification_reads (user_id, last_ts) VALUES (1, 33000000000000000);
    INSERT INTO messages (id, conversation, user_id, ts, type, sender, text, highlight) VALUES
      (10, 1, 1, 1700000000000000, 0, 'n', 'sane', 1),
      (11, 1, 1, 33000000000000000, 0, 'n', 'year 3100', 1),
      (12, 1, 1, -30610224000000000, 0, 'n', 'year 1000', 0);`);
  migrate(db, ms);
  const rows = db.prepare("SELECT id, ts FROM messages ORDER BY id").all() as {
    id: number;
    ts: number;
  }[];
  assertEquals(rows[0].ts, 1700000000000000);
  for (const r of rows) assertEquals(Number.isSafeInteger(r.ts) && r.ts >= 0, true);
  assertEquals(new Set(rows.map((r) => r.ts)).size, 3);
  assertEquals(rows[1].ts > rows[0].ts && rows[2].ts > rows[0].ts, true);
  const conv = db.prepare("SELECT last_read FROM conversations").get() as { last_read: number };
  assertEquals(conv.last_read, Math.max(...rows.map((r) => r.ts)));
  const reads = db.prepare("SELECT last_ts FROM notification_reads").get() as { last_ts: number };
  assertEquals(reads.last_ts, rows[1].ts);
  db.close();
});
