/**
 * Benchmark: many users' IRC connections on two Parley nodes sharing one PostgreSQL, against a
 * real ngircd on loopback, and the takeover when one node dies. SCALE_USERS users with
 * SCALE_CONNECTIONS connections each, every connection in SCALE_JOINS of SCALE_CHANNELS shared
 * channels (as bench/irc_scale.ts), created through the API: user u's requests go to node a when u
 * is even and to node b when odd, as a load balancer that spreads sessions would send them, and
 * the node that creates a user's first connection runs the user.
 *
 * Prints the time until the IRC server counts every connection registered and joined (and, per
 * connection, from the answer to its creation: on_irc_p50, _p99, _max); the users
 * and connections each node runs (from pg_locks: the advisory locks of the installation's lock
 * class, one per user, held by each node's session); each node's resident memory. Then a talker
 * on IRC says SCALE_TALK_LINES lines in each of SCALE_TALK_CHANNELS channels, and once every
 * member's history holds them node a is killed (SIGKILL): the time until node b runs every user
 * (pg_locks) and until the IRC server counts every connection back and joined; the most connects
 * the IRC server accepted in one second meanwhile (from its log, whose lines carry its uptime in
 * seconds) beside the pace PARLEY_CONNECT_DELAY sets for one node's connects to one host; the
 * ownership scan interval (the takeover bound: a dead node's users are taken within one scan);
 * and the talker's rows lost. The nodes run with the production scan interval unless
 * PARLEY_TEST_CLUSTER_SCAN_MS is set (printed as scan_interval_source). The 10,000 case:
 *
 *   SCALE_USERS=500 SCALE_CONNECTIONS=20 PARLEY_CONNECT_DELAY=0.01 \
 *     deno task bench irc_scale_cluster
 *
 * SCALE_WAIT_SECONDS bounds each wait for the IRC server's count (default 1200);
 * SCALE_DAEMON_FLAGS adds `deno run` flags to both daemons.
 */
import postgres from "postgres";
import { parseConfig } from "../config.ts";
import { nodeScope } from "../cluster/ownership.ts";
import { openStore } from "../store/mod.ts";
import { FIRST_EVENT_CODE } from "../protocol/messages.ts";
import { RawIrcClient } from "../tests/support/irc_client.ts";
import type { IrcServer } from "../tests/support/ngircd.ts";
import { type PgServer, startPostgres } from "../tests/support/postgres.ts";
import { startServer, type TestServer } from "../tests/support/server.ts";
import {
  callApi,
  IrcObserver,
  joinsOf,
  memoryMb,
  nick,
  num,
  printer,
  printMemory,
  type ScaleShape,
  seconds,
  seedUsers,
  sleep,
  startScaleIrc,
} from "./scale_support.ts";

const USERS = num("SCALE_USERS", 20);
const PER_USER = num("SCALE_CONNECTIONS", 5);
const CHANNELS = num("SCALE_CHANNELS", 100);
const shape: ScaleShape = {
  users: USERS,
  perUser: PER_USER,
  channels: CHANNELS,
  joins: Math.min(CHANNELS, num("SCALE_JOINS", 3)),
  fanout: 0,
};
const N = USERS * PER_USER;
/** Users whose connections are created through the API at once. */
const CREATORS = num("SCALE_CREATORS", 8);
const CONNECT_DELAY = Deno.env.get("PARLEY_CONNECT_DELAY") ?? "0.005";
const TALK_CHANNELS = Math.min(CHANNELS, num("SCALE_TALK_CHANNELS", 3));
const TALK_LINES = num("SCALE_TALK_LINES", 5);
const WAIT_MS = num("SCALE_WAIT_SECONDS", 1200) * 1000;
const DEBUG = !!Deno.env.get("BENCH_DEBUG");
/** More `deno run` flags for both daemons (`--cpu-prof --cpu-prof-dir=...`), as irc_scale's. */
const DAEMON_FLAGS = (Deno.env.get("SCALE_DAEMON_FLAGS") ?? "").split(" ").filter(Boolean);
/** Empty: the nodes use the production interval (an empty value is the same as none). */
const SCAN_OVERRIDE = Deno.env.get("PARLEY_TEST_CLUSTER_SCAN_MS") ?? "";
const SECRET = "the secret both bench nodes share";
const TALKER = "talker";
const print = printer("irc_scale_cluster_");

/**
 * The most connections the IRC server accepted in any one of its seconds, in the part of its log
 * from `from` on (ngircd prefixes each line with `[pid:level uptime]`).
 */
function connectsPerSecondMax(log: string, from: number): number {
  const perSecond = new Map<number, number>();
  for (const line of log.slice(from).split("\n")) {
    const m = /^\[\d+:\d+\s+(\d+)\] Accepted connection/.exec(line);
    if (m) perSecond.set(Number(m[1]), (perSecond.get(Number(m[1])) ?? 0) + 1);
  }
  return Math.max(0, ...perSecond.values());
}

const nodes: TestServer[] = [];
let pgServer: PgServer | undefined;
let ircServer: IrcServer | undefined;
let observer: IrcObserver | undefined;
let talker: RawIrcClient | undefined;
let sql: postgres.Sql | undefined;

/** Stops what the bench started, once: at its end, on failure, or when it is interrupted. */
let cleaning: Promise<void> | undefined;
const cleanUp = () =>
  cleaning ??= (async () => {
    await talker?.close().catch(() => {});
    await observer?.close().catch(() => {});
    for (const node of nodes) await node.close().catch(() => {});
    await sql?.end().catch(() => {});
    await ircServer?.close();
    await pgServer?.close();
  })();
const interrupted = () => cleanUp().finally(() => Deno.exit(130));
Deno.addSignalListener("SIGINT", interrupted);
Deno.addSignalListener("SIGTERM", interrupted);

const started = performance.now();
try {
  const pg = pgServer = await startPostgres({ maxConnections: 100, sharedBuffers: "128MB" });
  const irc = ircServer = await startScaleIrc("irc_scale_cluster_");
  const url = pg.url;
  sql = postgres(url, { max: 2, onnotice: () => {} });
  const scope = await nodeScope(SECRET);

  // Users and their sessions, seeded before the nodes open the database.
  const seedHome = await Deno.makeTempDir({ prefix: "parley-scale-cluster-" });
  const seeding = await openStore(seedHome, url);
  const cookies = await seedUsers(seeding, USERS);
  await seeding.close();
  await Deno.remove(seedHome, { recursive: true });

  /** The node ids alive in the database (their lock sessions' names). */
  const alive = async () =>
    (await sql!`SELECT substr(application_name, ${scope.prefix.length + 1}) AS node
      FROM pg_stat_activity WHERE datname = current_database()
        AND starts_with(application_name, ${scope.prefix})`).map((r) => String(r.node));

  /** Users and their wanted connections, by the node holding each user's lock. */
  const spread = async () => {
    const rows = await sql!`SELECT substr(a.application_name, ${
      scope.prefix.length + 1
    }) AS node, count(*)::int AS users, coalesce(sum(c.n), 0)::int AS connections
      FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      LEFT JOIN (SELECT user_id, count(*) AS n FROM connections
        WHERE wanted_state = 'connected' GROUP BY user_id) c ON c.user_id = l.objid::bigint
      WHERE l.locktype = 'advisory' AND l.classid::bigint = ${scope.lockClass}
        AND l.objsubid = 2 AND l.granted
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND a.datname = current_database() AND starts_with(a.application_name, ${scope.prefix})
      GROUP BY 1`;
    return new Map(
      rows.map((
        r,
      ) => [String(r.node), { users: r.users as number, conns: r.connections as number }]),
    );
  };

  /** Starts a node and resolves with its id once its lock session is open. */
  const startNode = async (): Promise<string> => {
    const before = new Set(await alive());
    nodes.push(
      await startServer({
        env: {
          PARLEY_DATABASE_URL: url,
          PARLEY_SECRET: SECRET,
          PARLEY_CONNECT_DELAY: CONNECT_DELAY,
          PARLEY_LOG_LEVEL: "warn",
          PARLEY_TEST_CLUSTER_SCAN_MS: SCAN_OVERRIDE,
          PARLEY_TEST_FAST_IRC: "",
        },
        permissions: ["-A", ...DAEMON_FLAGS],
      }),
    );
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const id = (await alive()).find((n) => !before.has(n));
      if (id) return id;
      await sleep(50);
    }
    throw new Error(`node ${nodes.length} did not join the cluster:\n${nodes.at(-1)!.output()}`);
  };
  const idA = await startNode();
  const idB = await startNode();
  const [a, b] = nodes;
  const scanMs = parseConfig({ PARLEY_TEST_CLUSTER_SCAN_MS: SCAN_OVERRIDE }).clusterScanMs;
  print("scan_interval", seconds(scanMs), "s");
  print("scan_interval_source", SCAN_OVERRIDE ? "PARLEY_TEST_CLUSTER_SCAN_MS" : "production");

  observer = await IrcObserver.connect(irc.port, shape, {
    ignore: [TALKER],
    waitMs: WAIT_MS,
    debug: DEBUG,
  });

  // Every connection created through the API, CREATORS users at a time, each user on one node.
  const t0 = performance.now();
  /** When each connection's creation was answered, by nick (its own three minutes start then). */
  const answered = new Map<string, number>();
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(CREATORS, USERS) }, async () => {
    while (next < USERS) {
      const u = next++;
      const node = nodes[u % 2];
      for (let c = 0; c < PER_USER; c++) {
        await callApi(node.url, cookies[u], "POST", "/connections", {
          url: `irc://127.0.0.1:${irc.port}?nick=${nick(u, c)}`,
          name: `bench ${c}`,
          on_connect_commands: [`JOIN ${joinsOf(shape, u, c).join(",")}`],
          wanted_state: "connected",
        });
        answered.set(nick(u, c), performance.now());
      }
    }
  }));
  print("connections", N);
  print("created_through_api", seconds(performance.now() - t0), "s");
  const all = await observer.allOnIrc(t0, (ms) => print("all_registered", seconds(ms), "s"));
  print("all_joined", seconds(all.ms), "s");
  print("not_on_irc", all.missing.users, "connections");
  print("joins_missing", all.missing.members, "joins");
  const each = observer.onIrcFigures((name) => answered.get(name) ?? t0);
  print("on_irc_p50", each.p50, "s");
  print("on_irc_p99", each.p99, "s");
  print("on_irc_max", each.max, "s");
  print("start_connects_per_s_max", connectsPerSecondMax(irc.output(), 0), "connects/s");

  await sleep(5000); // the last joins' events stored
  const shares = await spread();
  const onA = shares.get(idA) ?? { users: 0, conns: 0 };
  const onB = shares.get(idB) ?? { users: 0, conns: 0 };
  print("node_a_users", onA.users);
  print("node_a_connections", onA.conns);
  print("node_b_users", onB.users);
  print("node_b_connections", onB.conns);
  const off = Math.max(Math.abs(onA.conns - N / 2), Math.abs(onB.conns - N / 2)) / (N / 2);
  print("spread_off_half", off * 100, "%");
  print("rss_node_a", memoryMb(a.pid!()!).rss, "MB");
  print("rss_node_b", memoryMb(b.pid!()!).rss, "MB");

  // A few lines into channels whose members run on both nodes, stored in every member's history.
  talker = await RawIrcClient.connect(irc.port, TALKER);
  observer.others++;
  const talkChannels = Array.from({ length: TALK_CHANNELS }, (_, i) => `#ch${i}`);
  for (const ch of talkChannels) await talker.join(ch);
  const members = observer.names();
  const expected = talkChannels.reduce((s, ch) => s + (members.get(ch)?.size ?? 0), 0) *
    TALK_LINES;
  await sleep(2000); // the talker's joins stored before its lines
  for (const ch of talkChannels) {
    for (let i = 0; i < TALK_LINES; i++) await talker.say(ch, `line ${i} before the kill`);
  }
  const storedCount = async () =>
    Number(
      (await sql!`SELECT count(*) AS n FROM messages
      WHERE sender = ${TALKER} AND type < ${FIRST_EVENT_CODE}`)[0].n,
    );
  let t = performance.now();
  while (await storedCount() < expected && performance.now() - t < 60_000) await sleep(50);
  const before = await storedCount();
  print("talk_rows_expected", expected, "rows");
  print("talk_rows_stored", before, "rows");

  // The takeover: node a gone without a word, node b takes its users at its next scan.
  const logFrom = irc.output().length;
  t = performance.now();
  await a.kill();
  // The IRC server has dropped node a's connections (their quits seen in the channels) before
  // the count of those back starts.
  const dropDeadline = performance.now() + 30_000;
  while (performance.now() < dropDeadline) {
    if (observer.counts().members < observer.expectedMembers) break;
    await sleep(20);
  }
  let runningMs = NaN;
  const watch = (async () => {
    while (performance.now() - t < WAIT_MS) {
      const now = await spread();
      if ((now.get(idB)?.users ?? 0) >= USERS) return void (runningMs = performance.now() - t);
      await sleep(100);
    }
  })();
  const back = await observer.allOnIrc(
    t,
    (ms) => print("takeover_all_registered", seconds(ms), "s"),
  );
  await watch;
  print("takeover_node_b_runs_all", seconds(runningMs), "s");
  print("takeover_bound", seconds(scanMs), "s");
  // Node b's queue to the one host paces node a's connections back, one every connect delay.
  print("takeover_queue_time", onA.conns * Number(CONNECT_DELAY), "s");
  print("takeover_all_back", seconds(back.ms), "s");
  print("takeover_not_back", back.missing.users, "connections");
  print("takeover_joins_missing", back.missing.members, "joins");
  print(
    "takeover_connects_per_s_max",
    connectsPerSecondMax(irc.output(), logFrom),
    "connects/s",
  );
  print("connect_pace", 1 / Number(CONNECT_DELAY), "connects/s");
  const after = await storedCount();
  print("takeover_lost", before - after, "rows");
  printMemory(print, "rss_node_b_after_takeover", b.pid!()!);
  print("run_time", seconds(performance.now() - started), "s");
} catch (err) {
  nodes.forEach((n, i) =>
    console.error(`# node ${"ab"[i]}'s last words:\n${n.output().slice(-4000)}`)
  );
  throw err;
} finally {
  await cleanUp();
  Deno.removeSignalListener("SIGINT", interrupted);
  Deno.removeSignalListener("SIGTERM", interrupted);
}
