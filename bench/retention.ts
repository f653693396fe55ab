/**
 * Benchmark: message retention. Fills a store with PARLEY_BENCH_RETENTION_ROWS messages (default
 * 10,000,000; one INSERT ... SELECT over a recursive CTE on SQLite, generate_series on
 * PostgreSQL), lets the search index catch up, then prunes the oldest PARLEY_BENCH_RETENTION_PRUNE
 * (default 1,000,000) as the daemon does (store/retention.ts: its batch and pause) while a write
 * goes through the batched writer every 10 ms. Prints the prune's rows/s and the writes' latency
 * (append to committed) before and during the prune. PARLEY_BENCH_POSTGRES=1 runs it on a
 * throwaway PostgreSQL instead of SQLite.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { setLogLevel } from "../lib/log.ts";
import { nowMicros } from "../lib/time.ts";
import type { Store } from "../store/mod.ts";
import { openSqliteStore } from "../store/sqlite/mod.ts";
import { openPgStore, type PgStore } from "../store/pg/mod.ts";
import { startPostgres } from "../tests/support/postgres.ts";
import { idleConnection } from "../tests/support/backends.ts";
import { PRUNE_BATCH, PRUNE_PAUSE_MS, pruneBefore } from "../store/retention.ts";
import { line, pct } from "./stats.ts";

const ROWS = Number(Deno.env.get("PARLEY_BENCH_RETENTION_ROWS") ?? 10_000_000);
const PRUNE = Number(Deno.env.get("PARLEY_BENCH_RETENTION_PRUNE") ?? 1_000_000);
const POSTGRES = Deno.env.get("PARLEY_BENCH_POSTGRES") === "1";
/** The pause between batches (default: the daemon's). */
const PAUSE_MS = Number(Deno.env.get("PARLEY_BENCH_RETENTION_PAUSE_MS") ?? PRUNE_PAUSE_MS);
const CONVERSATIONS = 100;
/** Old rows are 1 ms apart, starting a year ago: the first PRUNE of them are before the cut. */
const BASE = nowMicros() - 365 * 86_400_000_000;
const WRITE_EVERY_MS = 10;

setLogLevel("warn");
const name = POSTGRES ? "postgres" : "sqlite";

/** A user, its connection and CONVERSATIONS channels; returns their ids. */
async function fixture(store: Store) {
  const user = await store.users.create("bench@example.com", "x", []);
  const conn = await idleConnection(store, user.id);
  const ids: number[] = [];
  for (let i = 0; i < CONVERSATIONS; i++) {
    ids.push((await store.conversations.ensure(conn.id, `#c${i}`, `#c${i}`)).id);
  }
  return { userId: user.id, conversations: ids };
}

/** Times one write every WRITE_EVERY_MS until `done` says stop: append to committed, in ms. */
async function writes(store: Store, userId: number, conversation: number, done: () => boolean) {
  const samples: number[] = [];
  let i = 0;
  while (!done()) {
    const t = performance.now();
    store.messages.append({
      conversation,
      userId,
      from: "writer",
      type: "private",
      text: `live line ${i++} while pruning`,
      unread: true,
    });
    await store.messages.flush();
    samples.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, WRITE_EVERY_MS));
  }
  return samples;
}

async function measure(store: Store, userId: number, live: number) {
  // Before: the writer alone, for as many writes as a second holds.
  let n = 0;
  const before = await writes(store, userId, live, () => n++ >= 100);
  line(`retention_${name}_write_p50_idle`, pct(before, 0.5), "ms");
  line(`retention_${name}_write_p99_idle`, pct(before, 0.99), "ms");

  let pruning = true;
  const during = writes(store, userId, live, () => !pruning);
  const t = performance.now();
  // Each batch's own time: from the end of the pause before it to its end.
  const batches: number[] = [];
  let last = t;
  const deleted = await pruneBefore(store.messages.retention!, BASE + (PRUNE + 1) * 1000, {
    pauseMs: PAUSE_MS,
    progress() {
      const now = performance.now();
      batches.push(now - last);
      last = now + PAUSE_MS;
    },
  });
  const ms = performance.now() - t;
  pruning = false;
  const samples = await during;
  if (deleted !== PRUNE) throw new Error(`${deleted} of ${PRUNE} rows pruned`);
  line(`retention_${name}_rows`, ROWS, "rows");
  line(`retention_${name}_pruned`, deleted, "rows");
  line(`retention_${name}_batch_rows`, PRUNE_BATCH, "rows");
  line(`retention_${name}_pause`, PAUSE_MS, "ms");
  line(`retention_${name}_prune_s`, ms / 1000, "s");
  line(`retention_${name}_prune_rows_per_s`, deleted / ms * 1000, "rows/s");
  line(`retention_${name}_batch_p50`, pct(batches, 0.5), "ms");
  line(`retention_${name}_batch_p99`, pct(batches, 0.99), "ms");
  line(`retention_${name}_write_p50_pruning`, pct(samples, 0.5), "ms");
  line(`retention_${name}_write_p99_pruning`, pct(samples, 0.99), "ms");
  line(`retention_${name}_write_max_pruning`, pct(samples, 1), "ms");
  line(`retention_${name}_writes_pruning`, samples.length, "writes");
}

if (!POSTGRES) {
  const home = await Deno.makeTempDir({ prefix: "parley-bench-retention-" });
  try {
    let store = await openSqliteStore(home);
    const { userId, conversations } = await fixture(store);
    await store.close();
    // The rows straight into parley.db, before the store opens it again: its indexer then
    // finds them unindexed and indexes them, as after an import.
    const t = performance.now();
    const db = new DatabaseSync(join(home, "parley.db"));
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO messages (id, conversation, user_id, ts, type, highlight, sender, text)
      SELECT i, ? + i % ?, ?, ? + i * 1000, 0, 0, 'nick' || (i % 400),
        'line ' || i || ' about word' || (i % 5000) || ' and word' || (i * 7 % 3000) FROM n`)
      .run(ROWS, conversations[0], CONVERSATIONS, userId, BASE);
    db.prepare("UPDATE message_ids SET next = ?").run(ROWS + 1);
    line("retention_sqlite_fill_s", (performance.now() - t) / 1000, "s");
    // What the migration that adds the time index costs a history this size, once.
    db.exec("DROP INDEX messages_ts");
    const indexing = performance.now();
    db.exec("CREATE INDEX messages_ts ON messages (ts)");
    line("retention_sqlite_ts_index_s", (performance.now() - indexing) / 1000, "s");
    db.close();
    store = await openSqliteStore(home);
    const indexed = performance.now();
    await store.messages.settled?.();
    line("retention_sqlite_index_s", (performance.now() - indexed) / 1000, "s");
    await measure(store, userId, conversations[1]);
    await store.close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
} else {
  const pg = await startPostgres({ sharedBuffers: "1GB" });
  let store: PgStore | undefined;
  try {
    store = await openPgStore(pg.url);
    const { userId, conversations } = await fixture(store);
    const t = performance.now();
    await store.sql`INSERT INTO messages (conversation, user_id, ts, type, highlight, sender,
        text, words)
      SELECT ${
      conversations[0]
    } + i % ${CONVERSATIONS}, ${userId}, ${BASE}::bigint + i::bigint * 1000, 0, false,
        'nick' || (i % 400), x.text, to_tsvector('simple', x.text)
      FROM generate_series(1, ${ROWS}) AS i,
        LATERAL (SELECT 'line ' || i || ' about word' || (i % 5000) || ' and word' ||
          (i * 7 % 3000) AS text) AS x`;
    line("retention_postgres_fill_s", (performance.now() - t) / 1000, "s");
    await store.sql`DROP INDEX messages_ts`;
    const indexing = performance.now();
    await store.sql`CREATE INDEX messages_ts ON messages (ts)`;
    line("retention_postgres_ts_index_s", (performance.now() - indexing) / 1000, "s");
    await store.sql`VACUUM ANALYZE messages`;
    await measure(store, userId, conversations[1]);
  } finally {
    await store?.close();
    await pg.close();
  }
}
