/**
 * A PostgreSQL connection pool for the store, and its numbered migrations (store/pg/migrations,
 * `NNN_name.sql`), each applied in its own transaction as store/sqlite/migrate.ts does for SQLite.
 */
import postgres from "postgres";
import { log } from "../../lib/log.ts";
import { tolerate } from "../../lib/stray_errors.ts";
import { unanswered } from "./unanswered.ts";
import { loadMigrations, logMigrated, type Migration, refuseNewer } from "../migration_files.ts";

/** A connection pool (porsager's `postgres` client). */
export type Sql = postgres.Sql;

/**
 * The folder of the PostgreSQL migration files.
 *
 * @internal test seam
 */
export const PG_MIGRATIONS_DIR = `${import.meta.dirname}/migrations`;

/**
 * Seconds before a lost or refused connection is tried again, after `refusals` in a row. The
 * client's own delay grows to 20 s: a query made a minute into an outage waited up to that long
 * only to be refused, and once the database was back the first query waited as long. Whoever
 * tries again paces itself (store/pg/unanswered.ts), so this only keeps a refused connection
 * from being tried in a tight loop.
 */
export function reconnectDelay(refusals: number): number {
  return Math.min(0.05 * 2 ** refusals, 0.5);
}

/**
 * Seconds a connection may take until the server is ready for queries (the TCP connect, TLS, the
 * login); past it the connection fails with CONNECT_TIMEOUT. A server that accepts and never
 * answers (a stopped VM behind a live proxy, a full listen queue) is so bounded.
 */
const CONNECT_TIMEOUT_S = 30;
/** How long the first answer may take before the log says what is waited for. */
const FIRST_ANSWER_NOTE_MS = 5000;

/**
 * Opens a pool on `url`. int8 columns come back as numbers: every id and timestamp the store
 * keeps is a safe integer (timestamps are bounded far below 2^53, see timestamps.ts).
 */
export function connectPg(url: string, max = 4): Sql {
  survivesClientFaults();
  return postgres(url, {
    max,
    connect_timeout: CONNECT_TIMEOUT_S,
    onnotice: () => {},
    backoff: reconnectDelay,
    // The store's queries read a page of rows. A parallel plan starts fresh worker processes for
    // one query, whose first touches of shared memory are page faults: measured at 10 M messages,
    // 0.8-1.3 s for a search that takes 36 ms in the session's own process.
    // A search's bitmap of matching rows must fit in work_mem, else it turns lossy and every
    // row on a lossy page is read and checked again: a prefix search at 10 M messages read
    // 32,713 pages for 6,441 matches with the default 4 MB (224 ms), 6,396 with 32 MB (100 ms).
    connection: { max_parallel_workers_per_gather: 0, work_mem: "32MB" },
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (x: number) => String(x),
        parse: (x: string) => Number(x),
      },
    },
  });
}

let guarded = false;

/**
 * Two faults of the client (postgres 3.4.9) that no caller can catch, each harmless, and each
 * ending the process if nothing takes it (tests/integration/pg_client_faults_test.ts):
 *
 * - It can write from a timer to a connection that closed meanwhile (its server restarted): a
 *   TypeError thrown in the timer. That connection's queries have been failed with
 *   CONNECTION_CLOSED already, and their callers try again.
 * - It reads a new connection's array types in a promise of its own, which nobody awaits: a
 *   connection ended while it opens (PostgreSQL stopping or restarting, a session terminated)
 *   rejects it. The query that waited for the connection is failed with the same error, and its
 *   caller sees it.
 */
function survivesClientFaults(): void {
  if (guarded) return;
  guarded = true;
  tolerate(
    "exception",
    (err) =>
      err instanceof TypeError && err.message.includes("reading 'write'") &&
        CLIENT_SOURCE.test(err.stack ?? "")
        ? "postgres: a write to a closed connection was skipped"
        : undefined,
  );
  tolerate("rejection", (err) => {
    const query = String((err as { query?: unknown } | null)?.query ?? "");
    return unanswered(err) && query.includes("typarray") && query.includes("pg_catalog.pg_type")
      ? "postgres: a connection ended while it was opening"
      : undefined;
  });
}

/** Where the client's connection code is, in a stack. */
const CLIENT_SOURCE = /\/postgres\/(?:[\d.]+\/)?src\/connection\.js/;

/** The advisory lock key that serialises migrations ("parley" in ASCII). */
const MIGRATION_LOCK = 0x706172_6c6579;

/**
 * Applies the migrations newer than the database's version; returns the versions applied. Throws
 * (a ConfigError) for a database migrated by a newer Parley.
 */
export async function migratePg(sql: Sql, migrations?: Migration[]): Promise<number[]> {
  migrations ??= await loadMigrations(PG_MIGRATIONS_DIR);
  const started = performance.now();
  const [{ table }] = await firstAnswer(
    sql,
    sql`SELECT to_regclass('schema_migrations')::text AS table`,
  );
  const stored = table
    ? (await sql<{ v: number | null }[]>`SELECT max(version) AS v FROM schema_migrations`)[0].v ?? 0
    : 0;
  refuseNewer(stored, migrations);
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await sql.begin(async (tx) => {
      // Two Parleys starting on one database: the second waits here, then sees the version
      // applied. The lock also covers creating the table (concurrent CREATE IF NOT EXISTS fail).
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied bigint NOT NULL)`;
      const [row] = await tx`SELECT 1 AS x FROM schema_migrations WHERE version = ${m.version}`;
      if (row) return false;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, name, applied)
        VALUES (${m.version}, ${m.name}, ${Date.now()})`;
      return true;
    });
    if (done) applied.push(m.version);
  }
  logMigrated(stored, applied, performance.now() - started);
  return applied;
}

/**
 * The first query's answer. Until the server answers, a start shows nothing but its listening
 * port's 503s; a server that is slow to answer (or never does, until CONNECT_TIMEOUT_S) is named in
 * the log once the wait is noticeable, so an operator knows what the start waits for.
 */
async function firstAnswer<T>(sql: Sql, query: Promise<T>): Promise<T> {
  const timer = setTimeout(() => {
    const { host, port } = sql.options;
    log.warn("waiting for the database to answer", {
      at: host.map((h, i) => `${h}:${port[i] ?? port[0]}`).join(","),
      gives_up_after_s: CONNECT_TIMEOUT_S,
    });
  }, FIRST_ANSWER_NOTE_MS);
  try {
    return await query;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A string PostgreSQL can hold: its text type refuses NUL, which hostile IRC servers and search
 * input may contain; it becomes U+FFFD, so the message is kept, not dropped.
 */
export function pgString(s: string): string {
  return s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s;
}
