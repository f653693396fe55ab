/**
 * `deno task bench store_tables`: the simple table groups' reads and writes that run per request
 * (and the conversation of each IRC line),
 * on SQLite and on a throwaway PostgreSQL (PARLEY_BENCH_POSTGRES=0 leaves it out). Each figure is
 * the median, over rounds of PARLEY_BENCH_TABLE_CALLS (default 2,000) calls one after another, of
 * a round's mean time per call (`_us`, wall) and of this process's CPU time per call (`_cpu_us`:
 * on a machine shared with other work, wall times move by 2x from run to run; CPU time much less).
 */
import process from "node:process";
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

/** Prints the medians over rounds of the wall and CPU µs per call of `fn(i)`. */
async function perCall(name: string, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < CALLS; i++) await fn(i); // warm: statements prepared, plans cached
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const used = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await fn(i);
    wall.push((performance.now() - started) * 1000 / CALLS);
    const { user, system } = process.cpuUsage(used);
    cpu.push((user + system) / CALLS);
  }
  line(`${name}_us`, pct(wall, 0.5), "µs");
  line(`${name}_cpu_us`, pct(cpu, 0.5), "µs");
}

async function bench(name: string, store: Store): Promise<void> {
  const ids: number[] = [];
  const hashes: string[] = [];
  const connections: number[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = await store.users.create(`u${i}@example.org`, "hash", []);
    ids.push(user.id);
    hashes.push(String(i).padStart(64, "0"));
    await store.sessions.create(hashes[i], user.id, Date.now() + 86_400_000);
    const connection = await store.connections.create({
      userId: user.id,
      connectionId: "irc-example",
      name: "example",
      url: "irc://irc.example.org",
      onConnectCommands: [],
      wantedState: "disconnected",
    });
    connections.push(connection.id);
    await store.conversations.ensure(connection.id, "#parley", "#parley");
  }
  const pick = <T>(list: T[], i: number) => list[(i * 7919) % list.length];
  await perCall(`${name}_sessions_get`, (i) => store.sessions.get(pick(hashes, i)));
  await perCall(`${name}_users_by_id`, (i) => store.users.byId(pick(ids, i)));
  await perCall(
    `${name}_sessions_touch`,
    (i) => store.sessions.touch(pick(hashes, i), Date.now() + 86_400_000),
  );
  await perCall(`${name}_connections_list`, (i) => store.connections.list(pick(ids, i)));
  await perCall(`${name}_settings_current`, () => store.settings.current());
  // Per IRC line: the conversation a line belongs to, read (or made) for every one stored.
  await perCall(
    `${name}_conversations_get`,
    (i) => store.conversations.get(pick(connections, i), "#parley"),
  );
  await perCall(
    `${name}_conversations_ensure`,
    (i) => store.conversations.ensure(pick(connections, i), "#parley", "#parley"),
  );
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
