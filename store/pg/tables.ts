/**
 * The shared table groups' executor on PostgreSQL: Kysely compiles, the pool runs each query as
 * a prepared statement (as the client's tagged templates do).
 */
import {
  type Compilable,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from "kysely";
import type postgres from "postgres";
import type { Database } from "../tables/schema.ts";
import type { Change, Queries, TableDb, Transaction } from "../tables/db.ts";
import { pgString, type Sql } from "./db.ts";

/** The channel on which nodes say that users changed (caches keyed on `generation` reload). */
export const USERS_CHANGED = "parley_users_changed";
/** The channel on which nodes say that an ignore list changed (their caches reload). */
export const IGNORES_CHANGED = "parley_ignores_changed";
/** The channel on which nodes say that conversations were renamed, removed or set. */
export const CONVERSATIONS_CHANGED = "parley_conversations_changed";

const CHANNELS: Record<Change, string> = {
  users: USERS_CHANGED,
  ignores: IGNORES_CHANGED,
  conversations: CONVERSATIONS_CHANGED,
};

/** A parameter as PostgreSQL can hold it: text without NUL (pgString). */
function bindable(value: unknown): postgres.ParameterOrJSON<never> {
  return (typeof value === "string" ? pgString(value) : value) as postgres.ParameterOrJSON<never>;
}

/** Queries over a pool or a transaction's connection. */
function queriesOn(
  q: Kysely<Database>,
  run: (
    sql: string,
    parameters: postgres.ParameterOrJSON<never>[],
  ) => Promise<unknown[] & { count: number }>,
): Queries {
  const exec = (query: Compilable<unknown>) => {
    const { sql, parameters } = query.compile();
    return run(sql, parameters.map(bindable));
  };
  return {
    q,
    all: async <R>(query: Compilable<R>) => await exec(query) as R[],
    first: async <R>(query: Compilable<R>) => (await exec(query))[0] as R | undefined,
    run: async (query) => (await exec(query)).count,
  };
}

/** The shared table groups' executor over the pool `sql`. */
export function pgTables(sql: Sql): TableDb {
  const q = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return {
    ...queriesOn(q, (text, parameters) => sql.unsafe(text, parameters, { prepare: true })),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>) =>
      sql.begin(async (raw) => {
        const queries = queriesOn(
          q,
          (text, parameters) => raw.unsafe(text, parameters, { prepare: true }),
        );
        return await fn({
          ...queries,
          async lockUser(userId) {
            // NO KEY UPDATE leaves rows that refer to the user free.
            await raw`SELECT id FROM users WHERE id = ${userId} FOR NO KEY UPDATE`;
          },
          async exclusive(key) {
            await raw`SELECT pg_advisory_xact_lock(${key})`;
          },
          async changed(what) {
            // Delivered at the commit: no node reloads before the change is there to read.
            await raw`SELECT pg_notify(${CHANNELS[what]}, '')`;
          },
        });
      }) as Promise<T>,
  };
}
