/**
 * Which store the daemons and in-process apps of a test run use. `deno task test` runs the route
 * and Convos-compatibility tests twice: on SQLite, then with PARLEY_TEST_POSTGRES set to the base
 * URL of one PostgreSQL the runner started, where each app or daemon gets a database of its own.
 */
import { createDatabase } from "./postgres.ts";

/** The base URL of the runner's PostgreSQL, when this run is the PostgreSQL pass. */
export const TEST_POSTGRES = Deno.env.get("PARLEY_TEST_POSTGRES") || undefined;

/** The backend of this run. */
export const TEST_BACKEND: "sqlite" | "postgres" = TEST_POSTGRES ? "postgres" : "sqlite";

/** A fresh database for one app or daemon in the PostgreSQL pass; undefined on SQLite. */
export function testDatabaseUrl(): Promise<string | undefined> {
  return TEST_POSTGRES ? createDatabase(TEST_POSTGRES) : Promise.resolve(undefined);
}
