/**
 * A full disk as SQLite tells it, through a statement (with its code) and through `exec` (only its
 * message), set apart from errors in the rows; and a rollback after SQLite rolled back itself.
 */
import { DatabaseSync } from "node:sqlite";
import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../../../support/assert.ts";
import { diskFailed, rollback, transaction } from "../../../../store/sqlite/db.ts";

/** A database that may not grow past its size now: SQLite's own refusal, SQLITE_FULL. */
function fullDatabase(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, x BLOB)");
  const pages = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages}`);
  return db;
}

Deno.test("a full disk is told apart from a bad row, from a statement and from exec", () => {
  const db = fullDatabase();
  const insert = db.prepare("INSERT INTO t (x) VALUES (randomblob(100000))");
  assert(diskFailed(assertThrows(() => insert.run())), "a statement's SQLITE_FULL");
  assert(
    diskFailed(assertThrows(() => db.exec("INSERT INTO t (x) VALUES (randomblob(100000))"))),
    "exec's",
  );
  db.exec("PRAGMA max_page_count = 1000");
  db.exec("INSERT INTO t (id, x) VALUES (1, x'00')");
  const again = assertThrows(() => db.prepare("INSERT INTO t (id, x) VALUES (1, x'00')").run());
  assert(!diskFailed(again), `a constraint is the row's fault: ${again}`);
  assert(!diskFailed(new Error("anything else")));
  db.close();
});

Deno.test("a transaction SQLite rolled back itself throws why, not 'no transaction is active'", () => {
  const db = fullDatabase();
  const err = assertThrows(() =>
    transaction(db, () => db.prepare("INSERT INTO t (x) VALUES (randomblob(100000))").run())
  );
  assert(diskFailed(err), `the disk's error: ${err}`);
  assertEquals(db.isTransaction, false);
  rollback(db); // nothing to roll back: no error
  db.exec("BEGIN");
  rollback(db);
  assertEquals(db.isTransaction, false, "one under way is rolled back");
  const plain = assertThrows(() => db.exec("ROLLBACK"), "a plain ROLLBACK now would throw");
  assertStringIncludes(plain.message, "no transaction is active");
  db.close();
});
