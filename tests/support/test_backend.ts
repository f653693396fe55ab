/**
 * Which store the daemons and in-process apps of a test run use. `deno task test` runs the route
 * and Convos-compatibility tests once more for every backend of the registry (store/backends.ts)
 * but the default: with PARLEY_TEST_BACKEND naming it and, when its entry names a test server,
 * PARLEY_TEST_SERVER holding what that server handed over (its base URL), where each app or
 * daemon gets a database of its own. Nothing here names a backend: a new one gets its pass from
 * its registry entry alone.
 */
import { type BackendEntry, BACKENDS } from "../../store/backends.ts";
import { createDatabase, startPostgres } from "./postgres.ts";

/** A server of a kind a backend's entry may name (`testServer`), as the tests use it. */
export interface StartedServer {
  /** What a test process needs to make databases on it (PARLEY_TEST_SERVER): its base URL. */
  handover: string;
  /** A new, empty database on it; returns its URL. */
  database(): Promise<string>;
  close(): Promise<void>;
}

/** A kind of test server: how to start one, and how a test process makes a database on it. */
interface ServerKind {
  /** `maxConnections`: how many sessions it must take at once (default: the server's own). */
  start(options?: { maxConnections?: number }): Promise<StartedServer>;
  /** A new database on the server a runner started and handed over as `handover`. */
  databaseOn(handover: string): Promise<string>;
}

/** The kinds of server the registry's entries may name. */
export const TEST_SERVERS: Record<NonNullable<BackendEntry["testServer"]>, ServerKind> = {
  postgres: {
    async start(options) {
      const pg = await startPostgres(options);
      return { handover: pg.base, database: () => pg.database(), close: () => pg.close() };
    },
    databaseOn: createDatabase,
  },
};

/** The backend every test uses unless a pass names another: the registry's default. */
const DEFAULT = BACKENDS[0];

/** The backend named `name` in the registry. */
export function backendNamed(name: string): BackendEntry {
  const entry = BACKENDS.find((b) => b.name === name);
  if (!entry) {
    throw new Error(`no backend "${name}" in store/backends.ts (${BACKENDS.map((b) => b.name)})`);
  }
  return entry;
}

/** The backends that get a pass of their own, after the default's run: every other one. */
export function passBackends(): BackendEntry[] {
  return BACKENDS.filter((b) => b !== DEFAULT);
}

/**
 * Starts what the pass of `entry` needs (its test server, if its entry names one) and returns the
 * environment of the test processes of the pass, and how to stop it after.
 */
export async function startPass(
  entry: BackendEntry,
): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const env: Record<string, string> = { PARLEY_TEST_BACKEND: entry.name };
  if (!entry.testServer) return { env, close: () => Promise.resolve() };
  // One server for the pass; every app and daemon in it makes a database of its own, hundreds
  // at a time in the parallel run.
  const server = await TEST_SERVERS[entry.testServer].start({ maxConnections: 400 });
  return { env: { ...env, PARLEY_TEST_SERVER: server.handover }, close: () => server.close() };
}

const named = Deno.env.get("PARLEY_TEST_BACKEND") || undefined;
const entry = named ? backendNamed(named) : DEFAULT;
const handover = Deno.env.get("PARLEY_TEST_SERVER") || undefined;

/** The backend of this run, as its entry names it. */
export const TEST_BACKEND: string = entry.name;

/**
 * A fresh database for one app or daemon in a backend's pass: on its test server, or, for a
 * backend without one, a URL of its scheme (it keeps its files in the data folder). Undefined on
 * the default backend, which opens in the data folder without a URL.
 */
export function testDatabaseUrl(): Promise<string | undefined> {
  if (entry === DEFAULT) return Promise.resolve(undefined);
  if (!entry.testServer) return Promise.resolve(`${entry.schemes[0]}://localhost`);
  if (!handover) {
    throw new Error(
      `PARLEY_TEST_BACKEND=${entry.name} needs PARLEY_TEST_SERVER: run it as ` +
        `deno task test --backend=${entry.name}`,
    );
  }
  return TEST_SERVERS[entry.testServer].databaseOn(handover);
}
