/**
 * PostgreSQL not answering: a restart ends every session (`57P01`), and until it accepts
 * connections again each query fails to connect. The client reconnects by itself at the next
 * query; what the writer holds is kept and written then (store/pg/writer.ts).
 */
import type { Sql } from "./db.ts";

/** Codes of the client (postgres) and of the system for a connection lost or refused. */
const LOST = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * SQLSTATEs of a server going away or not there yet: class 08 (connection exception),
 * admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections.
 */
const GOING = /^(?:08...|57P0[123]|53300)$/;

/** Whether `err` says the database did not answer (worth trying again), not that it refused. */
export function unanswered(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (LOST.has(code) || GOING.test(code));
}

/** Waits from the first delay up to the longest, doubling, while the database does not answer. */
const FIRST_MS = 100;
const LONGEST_MS = 5_000;
/** How often a wait looks whether the store has given up. */
const GIVE_UP_STEP_MS = 250;

/**
 * Resolves once the database answers a query, trying with a growing delay; false if `given_up`
 * says to stop first (the store is closing).
 */
export async function answered(sql: Sql, givenUp: () => boolean): Promise<boolean> {
  for (let delay = FIRST_MS;; delay = Math.min(delay * 2, LONGEST_MS)) {
    // In short steps: a store that closes gives up within one, not at the end of a long wait.
    for (let waited = 0; waited < delay; waited += GIVE_UP_STEP_MS) {
      await new Promise((r) => setTimeout(r, Math.min(GIVE_UP_STEP_MS, delay - waited)));
      if (givenUp()) return false;
    }
    try {
      await sql`SELECT 1`;
      return true;
    } catch { /* why: still away, which is the answer; ask again after a longer wait */ }
  }
}
