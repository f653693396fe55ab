/**
 * Benchmark: many users' IRC connections in one daemon, through the API, against a real ngircd
 * on loopback. SCALE_USERS users with SCALE_CONNECTIONS connections each, every connection in
 * SCALE_JOINS of SCALE_CHANNELS shared channels. Prints the daemon's resident memory (5 s after
 * the joins, and after the idle window) and what each connection adds over the idle daemon, its
 * idle CPU (the servers' PINGs included), how long until every connection was registered and had
 * joined (as the IRC server counts them: from the first creation, and per connection from its
 * creation's answer), the p99 of `GET /api/connections` and of a history page while they connect,
 * the same joins made by plain clients (bench/irc_plain.ts), a channel shared by SCALE_FANOUT users
 * (one line stored for all, SCALE_FANOUT_RATE lines/s for SCALE_FANOUT_SECONDS, then
 * SCALE_FANOUT_BURST lines as fast as the IRC server takes them: rows stored a second, lost lines,
 * unread counts and notifications checked), and a restart storm (kill -9, start: time until all
 * are back, per connection too, nothing stored lost). The defaults run in about two minutes (65 s
 * of them idle, to hold a round of keepalive PINGs); docs/performance.md has the 10,000 case:
 *
 *   SCALE_USERS=500 SCALE_CONNECTIONS=20 SCALE_FANOUT=300 PARLEY_CONNECT_DELAY=0.01 \
 *     deno task bench irc_scale
 *
 * PARLEY_CONNECT_DELAY (seconds between connects to one host, the daemon's own setting) paces
 * the connects; SCALE_PLAIN=0 skips the plain clients (SCALE_PLAIN=only runs only them),
 * SCALE_RESTART=0 the restart storm (SCALE_SETTLE_SECONDS, 60, the quiet time before its settled
 * memory is read), SCALE_FANOUT_BURST=0 the fan-out's burst;
 * SCALE_DAEMON_FLAGS adds `deno run` flags to the daemon (`--cpu-prof --cpu-prof-dir=...`).
 *
 * SCALE_LISTENER=1 runs the daemon with its listener for IRC clients on (PARLEY_IRC_LISTEN on
 * loopback), and every figure's name ends in `_listener`, so that a run with it and one without,
 * of the same shape, can be set side by side (memory per connection, CPU; docs/performance.md
 * compares them at 3,000 connections on ircd-hybrid). SCALE_ATTACH=N (with the
 * listener) then attaches N IRC clients, registered as gamja registers, to N connections spread
 * over the users once all have joined, before memory and CPU are read; they leave before the
 * restart storm.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { openStore } from "../store/mod.ts";
import { RawIrcClient } from "../tests/support/irc_client.ts";
import { freePort } from "../tests/support/ports.ts";
import type { BouncerClient } from "../tests/support/bouncer_client.ts";
import { attachAsGamja } from "./bouncer_support.ts";
import { plainClients } from "./irc_plain.ts";
import {
  callApi,
  channelsOf as channelsIn,
  cpuSeconds,
  FAN,
  IrcObserver,
  joinsOf as joinsIn,
  memoryMb,
  nick,
  num,
  p,
  printer,
  printMemory,
  type ScaleShape,
  seconds,
  seedUsers,
  sleep,
  startScaleIrc,
  StoredRows,
  threadCpu,
} from "./scale_support.ts";

const USERS = num("SCALE_USERS", 20);
const PER_USER = num("SCALE_CONNECTIONS", 5);
const CHANNELS = num("SCALE_CHANNELS", 100);
const JOINS = Math.min(CHANNELS, num("SCALE_JOINS", 3));
const FANOUT = Math.min(USERS, num("SCALE_FANOUT", 20));
const FAN_RATE = num("SCALE_FANOUT_RATE", 100);
const FAN_SECONDS = num("SCALE_FANOUT_SECONDS", 5);
/** Lines of the fan-out's burst, after its paced lines. */
const BURST = num("SCALE_FANOUT_BURST", 1000);
// 65 s: one round of keepalive PINGs (every 60 s per connection) falls in the window.
const IDLE_SECONDS = num("SCALE_IDLE_SECONDS", 65);
/** Users whose connections are created through the API at once. */
const CREATORS = num("SCALE_CREATORS", 8);
const CONNECT_DELAY = Deno.env.get("PARLEY_CONNECT_DELAY") ?? "0.005";
const PLAIN = Deno.env.get("SCALE_PLAIN") !== "0";
const RESTART = Deno.env.get("SCALE_RESTART") !== "0";
const WAIT_MS = num("SCALE_WAIT_SECONDS", 1200) * 1000;
/** Quiet seconds after the restart storm before its settled memory is read. */
const SETTLE_SECONDS = num("SCALE_SETTLE_SECONDS", 60);
const N = USERS * PER_USER;
/** Every line the daemon writes, kept in this file (SCALE_LOG_LEVEL sets its level, warn). */
const LOG_FILE = Deno.env.get("SCALE_DAEMON_LOG");
const LISTENER = Deno.env.get("SCALE_LISTENER") === "1";
const ATTACH = Math.min(N, num("SCALE_ATTACH", 0));
if (ATTACH && !LISTENER) throw new Error("SCALE_ATTACH needs SCALE_LISTENER=1");
const DEBUG = !!Deno.env.get("BENCH_DEBUG");
/** More `deno run` flags for the daemon (`--cpu-prof`, `--inspect`), for finding where time goes. */
const DAEMON_FLAGS = (Deno.env.get("SCALE_DAEMON_FLAGS") ?? "").split(" ").filter(Boolean);
const ROOT = new URL("..", import.meta.url).pathname;
const shape: ScaleShape = {
  users: USERS,
  perUser: PER_USER,
  channels: CHANNELS,
  joins: JOINS,
  fanout: FANOUT,
};
const channelsOf = (g: number) => channelsIn(shape, g);
const joinsOf = (u: number, c: number) => joinsIn(shape, u, c);
const printPlain = printer("irc_scale_");
const print: typeof printPlain = (name, value, unit) =>
  printPlain(LISTENER ? `${name}_listener` : name, value, unit);

// ---------------------------------------------------------------------------------------------
// The plain clients first, on a server of their own.
if (PLAIN) {
  const irc = await startScaleIrc("irc_scale_");
  try {
    const nicks = Array.from({ length: N }, (_, g) => `p${g}`);
    const plain = await plainClients(irc.port, nicks, channelsOf);
    print("plain_registered", seconds(plain.registeredMs), "s");
    print("plain_all_joined", seconds(plain.joinedMs), "s");
    plain.close();
  } finally {
    await irc.close();
  }
}
if (Deno.env.get("SCALE_PLAIN") === "only") Deno.exit(0);

// ---------------------------------------------------------------------------------------------
const irc = await startScaleIrc("irc_scale_");
const home = await Deno.makeTempDir({ prefix: "parley-scale-" });
const port = freePort();
const base = `http://127.0.0.1:${port}`;
const ircPort = freePort();

// Users and their sessions, seeded in the store before the daemon opens it.
const seeding = await openStore(home);
const cookies = await seedUsers(seeding, USERS);
await seeding.close();

let daemon: Deno.ChildProcess | undefined;
let daemonOut = "";
async function startDaemon(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", ...DAEMON_FLAGS, "main.ts", "daemon"],
    cwd: ROOT,
    env: {
      PARLEY_HOME: home,
      PARLEY_LISTEN: base,
      PARLEY_CONNECT_DELAY: CONNECT_DELAY,
      PARLEY_LOG_LEVEL: Deno.env.get("SCALE_LOG_LEVEL") ?? "warn",
      PARLEY_UPDATE_URL: "",
      PARLEY_NEW_USER_CONNECTION: "0",
      NO_COLOR: "1",
      ...(LISTENER ? { PARLEY_IRC_LISTEN: `irc://127.0.0.1:${ircPort}` } : {}),
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  daemon = child;
  for (const stream of [child.stdout, child.stderr]) {
    (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) {
        const text = decoder.decode(chunk, { stream: true });
        if (LOG_FILE) Deno.writeTextFileSync(LOG_FILE, text, { append: true });
        daemonOut = (daemonOut + text).slice(-20_000);
      }
    })();
  }
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/api`);
      await res.body?.cancel();
      if (res.ok) return child.pid;
    } catch { /* not yet */ }
    await sleep(50);
  }
  throw new Error(`the daemon did not start:\n${daemonOut}`);
}

async function api(u: number, method: string, path: string, body?: unknown) {
  return await callApi(base, cookies[u], method, path, body).catch((err) => {
    if (DEBUG) console.error(`# the daemon's last words:\n${daemonOut.slice(-4000)}`);
    throw err;
  });
}

/** An observer on the IRC server: how many clients are registered, and channel memberships. */
const observer = await IrcObserver.connect(irc.port, shape, {
  ignore: ["fanbot"],
  waitMs: WAIT_MS,
  debug: DEBUG,
});
const allOnIrc = observer.allOnIrc.bind(observer);

/** Latency of the API while the connections come: GET /api/connections and a history page. */
function probeApi(stop: () => boolean) {
  const list: number[] = [];
  const history: number[] = [];
  const done = (async () => {
    let i = 0;
    while (!stop() && !failed) {
      const u = i++ % USERS;
      let t = performance.now();
      const { connections } = await api(u, "GET", "/connections");
      list.push(performance.now() - t);
      const cid = connections[0]?.connection_id;
      if (cid) {
        t = performance.now();
        await api(u, "GET", `/connection/${cid}/messages?limit=60`);
        history.push(performance.now() - t);
      }
      await sleep(20);
    }
  })().catch((err) => {
    if (!failed) throw err;
  });
  return { list, history, done };
}

/**
 * Per connection, the time from `since` of its nick until the IRC server had it in all its
 * channels: `name`_p50, _p99 and _max (Infinity for one still missing), the slowest one's nick
 * with BENCH_DEBUG.
 */
function printOnIrc(name: string, since: (nick: string) => number) {
  const times = observer.onIrcFigures(since);
  print(`${name}_p50`, times.p50, "s");
  print(`${name}_p99`, times.p99, "s");
  print(`${name}_max`, times.max, "s");
  if (DEBUG) console.error(`# ${name}: the slowest was ${times.slowest}`);
}

/**
 * ATTACH IRC clients on the listener, to connections spread evenly over all of them (one app
 * token per user as the password); prints how long each attach took.
 */
async function attachClients(cids: Map<string, string>): Promise<BouncerClient[]> {
  const clients: BouncerClient[] = [];
  const tokens = new Map<number, string>();
  const times: number[] = [];
  for (let i = 0; i < ATTACH; i++) {
    const g = Math.floor((i * N) / ATTACH);
    const u = Math.floor(g / PER_USER);
    const c = g % PER_USER;
    let token = tokens.get(u);
    if (!token) {
      token = (await api(u, "POST", "/tokens", { name: "bench" })).token as string;
      tokens.set(u, token);
    }
    const login = `u${u}@bench.example/${cids.get(nick(u, c))}@bench${i}`;
    const t = performance.now();
    clients.push(await attachAsGamja(ircPort, login, token, `attach${i}`));
    times.push(performance.now() - t);
  }
  if (ATTACH) {
    print("attached", ATTACH, "clients");
    print("attach_p50", p(times, 0.5), "ms");
    print("attach_max", Math.max(...times), "ms");
  }
  return clients;
}

let failed = false;
try {
  let pid = await startDaemon();
  await sleep(5000);
  (await fetch(`${base}/api`)).body?.cancel();
  const rssIdle = memoryMb(pid).rss;
  print("rss_idle_daemon", rssIdle, "MB");

  // Every connection created through the API, CREATORS users at a time.
  const started = performance.now();
  let created = false;
  let onIrc = false;
  const probe = probeApi(() => created && onIrc);
  const cpuBeforeJoins = cpuSeconds(pid);
  let next = 0;
  /** When each connection's POST /connections was answered, by nick. */
  const answered = new Map<string, number>();
  /** Each connection's connection_id, by nick. */
  const cids = new Map<string, string>();
  await Promise.all(Array.from({ length: Math.min(CREATORS, USERS) }, async () => {
    while (next < USERS) {
      const u = next++;
      for (let c = 0; c < PER_USER; c++) {
        const made = await api(u, "POST", "/connections", {
          url: `irc://127.0.0.1:${irc.port}?nick=${nick(u, c)}`,
          name: `bench ${c}`,
          on_connect_commands: [`JOIN ${joinsOf(u, c).join(",")}`],
          wanted_state: "connected",
        });
        answered.set(nick(u, c), performance.now());
        cids.set(nick(u, c), made.connection_id);
      }
    }
  }));
  created = true;
  print("connections", N);
  print("created_through_api", seconds(performance.now() - started), "s");
  const all = await allOnIrc(started, (ms) => print("all_registered", seconds(ms), "s"));
  onIrc = true;
  print("all_joined", seconds(all.ms), "s");
  print("not_on_irc", all.missing.users, "connections");
  print("joins_missing", all.missing.members, "joins");
  // The daemon's CPU (every thread) for creating, connecting and joining, per connection.
  print("cpu_per_connection_joined", (cpuSeconds(pid) - cpuBeforeJoins) * 1000 / N, "ms");
  printOnIrc("on_irc", (name) => answered.get(name) ?? started);
  await probe.done;
  print("api_connections_p50", p(probe.list, 0.5), "ms");
  print("api_connections_p99", p(probe.list, 0.99), "ms");
  print("api_history_p50", p(probe.history, 0.5), "ms");
  print("api_history_p99", p(probe.history, 0.99), "ms");

  const attached = await attachClients(cids);
  await sleep(5000); // the last joins' NAMES and events stored
  printMemory(print, "rss_after_joins", pid);
  const cpu0 = cpuSeconds(pid);
  const threads0 = threadCpu(pid);
  const t0 = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const idleS = seconds(performance.now() - t0);
  print("idle_cpu", (cpuSeconds(pid) - cpu0) / idleS * 100, "%");
  // After a quiet minute: the daemon's idle collection has handed back what the joins used.
  const rss = printMemory(print, "rss", pid);
  print("kb_per_connection", (rss - rssIdle) * 1024 / N, "KB");
  if (DEBUG) {
    for (const [name, s] of threadCpu(pid)) {
      const used = (s - (threads0.get(name) ?? 0)) / idleS * 100;
      if (used >= 0.1) console.error(`# idle cpu ${name}: ${used.toFixed(2)} %`);
    }
  }
  // The first window holds the collection that ends the joins' burst; the next one is only the
  // connections being idle (keepalives, the servers' PINGs).
  const cpu1 = cpuSeconds(pid);
  const threads1 = threadCpu(pid);
  const t1 = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const settledS = seconds(performance.now() - t1);
  const settledCpu = (cpuSeconds(pid) - cpu1) / settledS;
  print("idle_cpu_settled", settledCpu * 100, "%");
  print("idle_cpu_per_connection", settledCpu * 1e6 / N, "µs/s");
  if (DEBUG) {
    for (const [name, s] of threadCpu(pid)) {
      const used = (s - (threads1.get(name) ?? 0)) / settledS * 100;
      if (used >= 0.1) console.error(`# settled idle cpu ${name}: ${used.toFixed(2)} %`);
    }
  }

  // Fan-out: one sender in a channel of FANOUT users, each with a history of their own.
  const db = new DatabaseSync(join(home, "parley.db"), { readOnly: true });
  const fanConvs = (db.prepare("SELECT id FROM conversations WHERE conversation_id = ?")
    .all(FAN) as { id: number }[]).map((r) => r.id);
  const inFan = `conversation IN (${fanConvs.join(",") || "0"})`;
  const fullCount = (on: DatabaseSync) =>
    (on.prepare(
      `SELECT count(*) AS n FROM messages WHERE ${inFan} AND sender = 'fanbot' AND type < 4`,
    )
      .get() as { n: number }).n;
  const sender = await RawIrcClient.connect(irc.port, "fanbot");
  observer.others++;
  await sender.join(FAN);
  await sleep(2000); // its JOIN stored for every member before the clock starts
  const rows = new StoredRows(db, fanConvs, "fanbot");
  rows.start();
  const members = fanConvs.length;
  let t = performance.now();
  await sender.say(FAN, "one line for everyone");
  await rows.until(members, 60_000);
  print("fanout_members", members);
  print("fanout_one_line_all_stored", performance.now() - t, "ms");

  const mentions = new Map<string, number>();
  let said = 0;
  /** The next line of the fan-out; one in ten names a member, a notification for that user. */
  const sayNext = () => {
    const i = said++;
    const to = i % 10 === 0 && FANOUT > 0 ? nick((i / 10) % FANOUT, 0) : "";
    if (to) mentions.set(to, (mentions.get(to) ?? 0) + 1);
    return sender.say(FAN, `${to ? `${to}: ` : ""}line ${i} of the fan-out`);
  };

  // Paced: FAN_RATE lines a second, as a busy channel would be.
  const lines = FAN_RATE * FAN_SECONDS;
  let from = rows.count;
  t = performance.now();
  for (let i = 0; i < lines; i++) {
    await sayNext();
    const due = t + (i + 1) * 1000 / FAN_RATE;
    if (due > performance.now()) await sleep(due - performance.now());
  }
  let sentAt = performance.now();
  print("fanout_sent_per_s", lines / seconds(sentAt - t), "lines/s");
  await rows.until(from + members * lines, 60_000);
  let phase = rows.phase(from, from + members * lines);
  print("fanout_stored_rows_per_s", phase.rowsPerS, "rows/s");
  print("fanout_drain_ms", phase.lastAt - sentAt, "ms");

  // Burst: BURST lines as fast as the IRC server reads them from the sender: what the daemon can
  // store when the channel's pace is not the limit.
  if (BURST > 0) {
    from = rows.count;
    t = performance.now();
    for (let i = 0; i < BURST; i++) await sayNext();
    sentAt = performance.now();
    await rows.until(from + members * BURST, 120_000);
    phase = rows.phase(from, from + members * BURST);
    print("fanout_burst_lines", BURST, "lines");
    print("fanout_burst_rows_per_s", phase.rowsPerS, "rows/s");
    // From the first line sent: the server's relaying and the daemon's reading included, which
    // first -> last stored leaves out when the daemon reads much of the burst before it commits.
    print(
      "fanout_burst_rows_per_s_from_sent",
      (rows.count - from) / seconds(phase.lastAt - t),
      "rows/s",
    );
    print("fanout_burst_drain_ms", phase.lastAt - sentAt, "ms");
    if (DEBUG) {
      const at = (ms: number) => `${(ms - t).toFixed(0)} ms`;
      console.error(
        `# burst: sent by ${at(sentAt)}, first row stored by ${at(phase.firstAt)}, ` +
          `all by ${at(phase.lastAt)}`,
      );
    }
  }
  await rows.stop();

  const expected = members * (1 + lines + BURST);
  const stored = fullCount(db);
  print("fanout_lost", expected - stored, "rows");
  if (DEBUG && expected > stored) {
    const logged = irc.output().split("\n").filter((l) =>
      /fanbot|flood|Excess|penalty|buffer/i.test(l)
    );
    console.error(logged.slice(-10).map((l) => `# ircd: ${l}`).join("\n"));
  }
  const unread = db.prepare(`SELECT unread FROM conversations WHERE id IN (${fanConvs.join(",")})`)
    .all() as { unread: number }[];
  print(
    "fanout_unread_wrong",
    unread.filter((r) => r.unread !== 1 + lines + BURST).length,
    "members",
  );
  const got = (db.prepare(`SELECT count(*) AS n FROM messages WHERE ${inFan} AND highlight = 1`)
    .get() as { n: number }).n;
  const want = [...mentions.values()].reduce((s, n) => s + n, 0);
  print("fanout_notifications_wrong", Math.abs(got - want), "rows");
  const before = stored;
  db.close();

  for (const c of attached) c.close();
  if (RESTART) {
    // The restart storm: no shutdown at all, then every connection back through the host queue.
    daemon!.kill("SIGKILL");
    await daemon!.status;
    const t1 = performance.now();
    pid = await startDaemon();
    const back = await allOnIrc(t1);
    print("restart_all_back", seconds(back.ms), "s");
    print("restart_not_back", back.missing.users, "connections");
    print("restart_joins_missing", back.missing.members, "joins");
    printOnIrc("restart_on_irc", () => t1);
    const after = new DatabaseSync(join(home, "parley.db"), { readOnly: true });
    const kept = fullCount(after);
    after.close();
    print("restart_lost", before - kept, "rows");
    printMemory(print, "rss_after_restart", pid);
    // The storm's end is its peak; what stays is read once the daemon has had a quiet minute.
    await sleep(SETTLE_SECONDS * 1000);
    printMemory(print, "rss_restart_settled", pid);
  }
  await sender.close();
} catch (err) {
  failed = true;
  console.error(`# the daemon's last words:\n${daemonOut.slice(-4000)}`);
  throw err;
} finally {
  await observer.close();
  if (daemon) {
    try {
      daemon.kill("SIGTERM");
    } catch { /* gone */ }
    await daemon.status;
  }
  await irc.close();
  await Deno.remove(home, { recursive: true }).catch(() => {});
}
