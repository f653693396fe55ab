/**
 * Benchmark: CHATHISTORY for attached IRC clients. Fills a fresh store with
 * PARLEY_BENCH_CHATHISTORY_MESSAGES messages (default 200,000, a quick run) as bench/history.ts
 * does, then times `CHATHISTORY BEFORE <channel> timestamp=<random time> 100` through the
 * bouncer's history service (conversation lookup, the store's range, the IRC lines and batch).
 * Target at 10,000,000 stored messages: p99 under 20 ms (docs/performance.md). With
 * PARLEY_BENCH_POSTGRES=1 the whole store is a throwaway PostgreSQL instead of SQLite.
 */
import { startPostgres } from "../tests/support/postgres.ts";
import { openStore } from "../store/mod.ts";
import { connectPg } from "../store/pg/db.ts";
import { EventBus } from "../lib/bus.ts";
import { setLogLevel } from "../lib/log.ts";
import { nowMicros } from "../lib/time.ts";
import { type HistoryScope, historyService } from "../bouncer/history/mod.ts";
import { rng, sentence, vocabulary, zipf } from "./history_data.ts";
import { line, pct } from "./stats.ts";

const N = Number(Deno.env.get("PARLEY_BENCH_CHATHISTORY_MESSAGES") ?? 200_000);
const USERS = 10;
const CONNECTIONS_PER_USER = 2;
const CONVERSATIONS_PER_CONNECTION = 20;
/** Messages per event-loop turn, and turns between waits for the commit (as bench/history.ts). */
const TURN = 1000;
const FLUSH_EVERY = 8;
const QUERIES = 2000;

setLogLevel("warn");
const random = rng(7);
const words = vocabulary(30_000, random);
const draw = zipf(words.length, random);
const nicks = Array.from({ length: 400 }, (_, i) => `nick${i}`);

const pgServer = Deno.env.get("PARLEY_BENCH_POSTGRES") === "1"
  ? await startPostgres({ sharedBuffers: "4GB", settings: ["huge_pages=try"] })
  : undefined;
const home = await Deno.makeTempDir({ prefix: "parley-bench-chathistory-" });
const store = await openStore(home, pgServer?.url);
try {
  const service = historyService({ store, bus: new EventBus() });
  if (!service) throw new Error("the store has no history capability");
  const channels: { scope: HistoryScope; id: number; name: string }[] = [];
  for (let u = 0; u < USERS; u++) {
    const user = await store.users.create(`u${u}@example.com`, "x", []);
    for (let k = 0; k < CONNECTIONS_PER_USER; k++) {
      const conn = await store.connections.create({
        userId: user.id,
        connectionId: `irc-net${k}`,
        name: `net${k}`,
        url: `irc://irc.net${k}.example:6667?nick=u${u}`,
        onConnectCommands: [],
        wantedState: "disconnected",
      });
      const scope: HistoryScope = {
        userId: user.id,
        connection: { id: conn.id, connectionId: conn.connectionId },
        client: "bench",
        nick: `u${u}`,
      };
      for (let c = 0; c < CONVERSATIONS_PER_CONNECTION; c++) {
        const conv = await store.conversations.ensure(conn.id, `#chan${c}`, `#Chan${c}`);
        channels.push({ scope, id: conv.id, name: conv.name });
      }
    }
  }

  // Messages span the last ~2 years, in order; a few channels carry most of the traffic.
  const span = 2 * 365 * 24 * 3600 * 1e6;
  const start = nowMicros() - span;
  const step = span / N;
  const texts = Array.from({ length: 50_000 }, () => sentence(words, draw, random));
  const appended: Promise<unknown>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < N; i += TURN) {
    for (let j = i; j < Math.min(N, i + TURN); j++) {
      const conv = channels[Math.floor(random() ** 2 * channels.length)];
      appended.push(store.messages.append({
        conversation: conv.id,
        userId: conv.scope.userId,
        from: nicks[Math.floor(random() * nicks.length)],
        type: "private",
        text: texts[j % texts.length],
        ts: Math.floor(start + j * step),
      }));
    }
    await Promise.all(appended);
    appended.length = 0;
    if ((i / TURN) % FLUSH_EVERY === FLUSH_EVERY - 1) await store.messages.flush();
  }
  await store.messages.flush();
  line("chathistory_ingest_msgs_per_s", N / ((performance.now() - t0) / 1000), "msgs/s");
  // SQLite's search indexer catches up and tidies in a worker after the load; a server is idle
  // most of the time, when that happens, so queries are timed after it (as bench/history.ts).
  await store.messages.settled?.();
  if (pgServer) {
    // PostgreSQL's tidying is autovacuum's ANALYZE and the checkpoint after a bulk load, done now
    // rather than in the middle of the timed queries (as bench/history.ts).
    const sql = connectPg(pgServer.url, 1);
    await sql`VACUUM ANALYZE messages`;
    await sql`CHECKPOINT`.catch(() => {});
    await sql.end();
  }

  // BEFORE a random time of the stored span, in a random channel: deep pages as a client
  // scrolling back asks for them, not only the newest.
  const ask = async () => {
    const conv = channels[Math.floor(random() * channels.length)];
    const before = new Date((start + random() * span) / 1000).toISOString();
    const t = performance.now();
    const out = await service.chathistory(
      conv.scope,
      ["BEFORE", conv.name, `timestamp=${before}`, "100"],
      { batch: true, eventPlayback: false },
    );
    const ms = performance.now() - t;
    if (!out[0].startsWith("BATCH +")) throw new Error(`unexpected answer: ${out[0]}`);
    return { ms, lines: out.length - 2 };
  };
  for (let i = 0; i < 200; i++) await ask(); // a server answering for a while: caches warm
  const samples: number[] = [];
  let lines = 0;
  for (let i = 0; i < QUERIES; i++) {
    const got = await ask();
    samples.push(got.ms);
    lines += got.lines;
  }
  line("chathistory_before_100_lines_avg", lines / QUERIES, "lines");
  line("chathistory_before_100_p50_ms", pct(samples, 0.5), "ms");
  line("chathistory_before_100_p99_ms", pct(samples, 0.99), "ms");
} finally {
  await store.close();
  await pgServer?.close();
  await Deno.remove(home, { recursive: true });
}
