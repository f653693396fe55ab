/**
 * `deno task bench store_tables`: the simple table groups' reads and writes that run per request,
 * on SQLite and on a throwaway PostgreSQL (PARLEY_BENCH_POSTGRES=0 leaves it out). Each figure is
 * the median, over rounds of PARLEY_BENCH_TABLE_CALLS (default 2,000) calls one after another, of
 * a round's mean time per call: on a loaded machine the median round is the steady one.
 */
import { setLogLevel } from "../lib/log.ts";
import type { Store } from "../store/mod.ts";
import { sqliteBackend } from "../store/sqlite/mod.ts";
import { pgBackend } from "../store/pg/mod.ts";
import { startPostgres } from "../tests/support/postgres.ts";
import { line, pct } from "./stats.ts";

setLogLevel("warn");

const CALLS = Number(Deno.env.get("PARLEY_BENCH_TABLE_CALLS") ?? 2_000);
const ROUNDS = 15;
const USERS = 200;

/** Median over rounds of the mean µs per call of `fn(i)`. */
async function perCall(fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < CALLS; i++) await fn(i); // warm: statements prepared, plans cached
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await fn(i);
    rounds.push((performance.now() - started) * 1000 / CALLS);
  }
  return pct(rounds, 0.5);
}

async function bench(name: string, store: Store): Promise<void> {
  const ids: number[] = [];
  const hashes: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = await store.users.create(`u${i}@example.org`, "hash", []);
    ids.push(user.id);
    hashes.push(String(i).padStart(64, "0"));
    await store.sessions.create(hashes[i], user.id, Date.now() + 86_400_000);
    await store.connections.create({
      userId: user.id,
      connectionId: "irc-example",
      name: "example",
      url: "irc://irc.example.org",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
  }
  const pick = <T>(list: T[], i: number) => list[(i * 7919) % list.length];
  line(`${name}_sessions_get_us`, await perCall((i) => store.sessions.get(pick(hashes, i))), "µs");
  line(`${name}_users_by_id_us`, await perCall((i) => store.users.byId(pick(ids, i))), "µs");
  line(
    `${name}_sessions_touch_us`,
    await perCall((i) => store.sessions.touch(pick(hashes, i), Date.now() + 86_400_000)),
    "µs",
  );
  line(
    `${name}_connections_list_us`,
    await perCall((i) => store.connections.list(pick(ids, i))),
    "µs",
  );
  line(`${name}_settings_current_us`, await perCall(() => store.settings.current()), "µs");
}

const home = await Deno.makeTempDir({ prefix: "parley-bench-tables-" });
try {
  const store = await sqliteBackend.open(home);
  try {
    await bench("sqlite", store);
  } finally {
    await store.close();
  }
} finally {
  await Deno.remove(home, { recursive: true });
}

if (Deno.env.get("PARLEY_BENCH_POSTGRES") !== "0") {
  const server = await startPostgres();
  try {
    const store = await pgBackend.open("", await server.database());
    try {
      await bench("postgres", store);
    } finally {
      await store.close();
    }
  } finally {
    await server.close();
  }
}
