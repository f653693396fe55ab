/**
 * The shared table groups' executor on SQLite: Kysely compiles, node:sqlite runs. Statements are
 * prepared once per SQL text and kept; they run synchronously, as the hand-written ones do.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import {
  type Compilable,
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { Database } from "../tables/schema.ts";
import { rollback } from "./db.ts";
import { sqliteFailure } from "./failure.ts";
import type { Queries, TableDb, Transaction } from "../tables/db.ts";

/** A compiled query's parameter as node:sqlite binds it: a flag is 1 or 0. */
function bindable(value: unknown): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  return value as SQLInputValue;
}

/**
 * A write the disk refused, said so (the edge answers 503): nothing in the request was wrong, and
 * nothing of it was saved.
 */
function writeError(err: unknown): unknown {
  return sqliteFailure(err) ?? err;
}

/** `fn`'s result, a write the disk refused told as such (`writeError`). */
function told<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    throw writeError(err);
  }
}

/** A write that returns rows (Kysely writes `returning`). */
const RETURNS = /^(?:insert|update|delete|replace)\b[\s\S]*\breturning\b/i;

/** The shared table groups' executor over `db`. */
export function sqliteTables(db: DatabaseSync): TableDb {
  const q = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  /** Each query's statement, and whether it is a write that returns rows (read once). */
  const statements = new Map<string, { statement: StatementSync; returns: boolean }>();
  const prepared = (query: Compilable<unknown>) => {
    const { sql, parameters } = query.compile();
    let known = statements.get(sql);
    if (!known) {
      statements.set(sql, known = { statement: db.prepare(sql), returns: RETURNS.test(sql) });
    }
    return { ...known, parameters: parameters.map(bindable) };
  };
  const queries: Queries = {
    q,
    all<R>(query: Compilable<R>) {
      const { statement, parameters } = prepared(query);
      return told(() => statement.all(...parameters) as R[]);
    },
    first<R>(query: Compilable<R>) {
      const { statement, parameters, returns } = prepared(query);
      if (!returns) return Promise.resolve(statement.get(...parameters) as R | undefined);
      // A write's returned row read with get() leaves the statement unfinished: outside a
      // transaction its commit comes when it is reset, and node:sqlite does not report that
      // commit failing (a full disk): the row came back and was not stored. all() runs it to its
      // end, where the failure is thrown.
      return told(() => statement.all(...parameters)[0] as R | undefined);
    },
    run(query) {
      const { statement, parameters } = prepared(query);
      return told(() => Number(statement.run(...parameters).changes));
    },
  };
  const tx: Transaction = {
    ...queries,
    // BEGIN IMMEDIATE took the write lock; one process, one connection: no other node to tell.
    lockUser: () => Promise.resolve(),
    exclusive: () => Promise.resolve(),
    changed: () => Promise.resolve(),
  };
  let turn = Promise.resolve();
  return {
    ...queries,
    transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      // One transaction at a time on the one connection: a second waits for the first's end.
      const run = turn.then(async () => {
        // Inside a transaction of hand-written code (the importer's), a savepoint: the outer
        // commit or rollback is that code's.
        const nested = db.isTransaction;
        db.exec(nested ? "SAVEPOINT tables" : "BEGIN IMMEDIATE");
        try {
          const result = await fn(tx);
          db.exec(nested ? "RELEASE tables" : "COMMIT");
          return result;
        } catch (err) {
          rollback(db, nested ? "ROLLBACK TO tables; RELEASE tables" : "ROLLBACK");
          throw writeError(err);
        }
      });
      turn = run.then(() => {}, () => {});
      return run;
    },
  };
}
