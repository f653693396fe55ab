/**
 * Which errors each backend calls the database's own failure (answered 503), and which it leaves
 * to the caller: a refused row is the request's fault, not the database's.
 */
import { assertEquals } from "../../support/assert.ts";
import { pgFailure } from "../../../store/pg/failure.ts";
import { sqliteBackend } from "../../../store/sqlite/mod.ts";

const kindOf = (e: { kind: string; message: string } | undefined) =>
  e && [e.kind, e.message.split(":")[0].split(".")[0]];

Deno.test("PostgreSQL: a full disk and a database not answering, nothing else", () => {
  const code = (code: string) => Object.assign(new Error("x"), { code });
  const full = ["unavailable", "The server's disk is full"];
  const away = ["unavailable", "The database is not answering"];
  assertEquals(kindOf(pgFailure(code("53100"))), full);
  for (const c of ["ECONNREFUSED", "CONNECTION_CLOSED", "57P01", "08006", "53300"]) {
    assertEquals(kindOf(pgFailure(code(c))), away, c);
  }
  for (const c of ["23505", "23503", "22P02", "53200"]) {
    assertEquals(pgFailure(code(c)), undefined, c);
  }
  assertEquals(pgFailure(new Error("no code")), undefined);
  assertEquals(pgFailure(undefined), undefined);
});

Deno.test("SQLite: a full disk or an I/O error, not a constraint", () => {
  const sqlite = (errcode: number) => Object.assign(new Error("x"), { errcode });
  const full = ["unavailable", "The server's disk is full"];
  assertEquals(kindOf(sqliteBackend.failure(sqlite(13))), full); // SQLITE_FULL
  assertEquals(kindOf(sqliteBackend.failure(sqlite(778))), full); // SQLITE_IOERR_WRITE
  assertEquals(sqliteBackend.failure(sqlite(2067)), undefined); // SQLITE_CONSTRAINT_UNIQUE
  assertEquals(sqliteBackend.failure(new Error("no code")), undefined);
});
