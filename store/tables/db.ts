/**
 * What a backend gives the shared table groups: a Kysely builder of its dialect that only
 * compiles (no Kysely driver), and an executor that runs the compiled SQL the backend's own way
 * (SQLite: cached prepared statements, synchronously; PostgreSQL: the pool, prepared). Kysely's
 * drivers would add a connection queue and several promise hops to every query; compiling alone
 * costs about 2-3 µs a query.
 */
import { type Compilable, type CompiledQuery, type Expression, type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

/** The kinds of change other nodes sharing the database are told of (their caches reload). */
export type Change = "users" | "ignores" | "conversations";

/** Runs compiled queries. */
export interface Queries {
  /** Builds and compiles queries of this backend's dialect; it runs none itself. */
  readonly q: Kysely<Database>;
  /** Every row of a query. */
  all<R>(query: Compilable<R>): Promise<R[]>;
  /** The first row of a query, if any. */
  first<R>(query: Compilable<R>): Promise<R | undefined>;
  /** Runs a write; returns how many rows it changed. */
  run(query: Compilable<unknown>): Promise<number>;
}

/** Queries inside a transaction, with what only some backends need there. */
export interface Transaction extends Queries {
  /**
   * Holds the user's row until the commit, so that concurrent writes for one user (counting
   * then inserting) take turns. SQLite's transaction holds the database's write lock already.
   */
  lockUser(userId: number): Promise<void>;
  /**
   * Takes the lock `key` until the commit: transactions that take the same key run one after
   * another. SQLite's transactions do already (BEGIN IMMEDIATE).
   */
  exclusive(key: number): Promise<void>;
  /** Tells the other nodes at the commit that `what` changed (nothing where there are none). */
  changed(what: Change): Promise<void>;
}

/** A backend's executor for the shared table groups. */
export interface TableDb extends Queries {
  /**
   * Runs `fn` in a transaction, rolled back when it throws. `fn` awaits only queries of its
   * transaction: SQLite runs them at once, so nothing else runs on its connection meanwhile.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** A placeholder for an argument of a prepared query, found again in its parameters. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A query built and compiled once, for those that run on every request (a session, its user):
 * `build` gets a placeholder expression for each argument, and each call fills them in. Building
 * and compiling cost 3-5 µs a call, as much as SQLite's own work for such a read.
 */
export function prepared<P extends unknown[], R>(
  build: (...placeholders: { [K in keyof P]: Expression<P[K]> }) => Compilable<R>,
): (...args: P) => Compilable<R> {
  let compiled: CompiledQuery<R> | undefined;
  type Placeholders = { [K in keyof P]: Expression<P[K]> };
  const placeholders = Array.from({ length: build.length }, (_, i) => sql`${new Slot(i)}`);
  return (...args) => ({
    compile() {
      compiled ??= build(...placeholders as Placeholders).compile();
      return {
        ...compiled,
        parameters: compiled.parameters.map((p) => p instanceof Slot ? args[p.index] : p),
      };
    },
  });
}

/** The tables whose rows a user owns and has a bounded number of. */
type BoundedPerUser = "app_tokens" | "certfps";

/**
 * How many rows of `table` the user has: under the user's row lock (`lockUser`), so that a bound
 * checked against it holds for adds made at once.
 */
export async function rowsOfUser(
  tx: Queries,
  table: BoundedPerUser,
  userId: number,
): Promise<number> {
  const [{ n }] = await tx.all(
    tx.q.selectFrom(table).select((e) => e.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId),
  );
  return Number(n);
}
