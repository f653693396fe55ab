/**
 * Benchmark: the bouncer listener of a real daemon (child process) on a real ngircd.
 * - `bouncer_attach_*`: from TCP connect to ready to type (SASL, the burst of a connection in
 *   100 channels, the replay for a client without chat history; a PING answered after all of it),
 *   for a client with chat history (no replay) and one without. Target: under 1 s.
 * - `bouncer_attach_fetch_*`: the same for a client with chat history that then fetches each
 *   channel's history as gamja and Goguma do (`CHATHISTORY LATEST <channel> * 50`, all 100 sent
 *   at once), ready when the 100th batch has ended. Target: under 1 s.
 * - `bouncer_attach_sync_*`: the same for a client that then asks each channel's modes as irssi
 *   and weechat sync a channel (`MODE <channel>`, all 100 sent at once), ready when the 100th
 *   answer (324) came. The network's flood control (a line every 2 s after 5) would make it
 *   minutes if each went to the server.
 * - `bouncer_relay_*`: the listener's cost on the line path. A speaker on ngircd says
 *   PARLEY_BENCH_RELAY_RATE lines/s (default 1,000) for PARLEY_BENCH_RELAY_SECONDS (default 20) in
 *   one of those channels, with 0, 1 and 3 clients attached (registered as gamja registers), then
 *   on a second daemon without the listener (`_off`). Each phase prints the daemon's CPU (utime +
 *   stime from /proc) per upstream line, as a share of a core and split by thread, the lines per
 *   socket read (each read costs on its own in every thread: how many lines ngircd's writes carry
 *   decides much of a line's cost; docs/performance.md), the lines lost (not stored, or not
 *   received by an attached client: 0 expected), and with clients the latency from ngircd to
 *   an attached client (a plain client on ngircd in the same channel receives each line too; the
 *   difference of the two arrival times). Target: 3 clients cost under 10% of a core more than
 *   none, and no more CPU per line than before a change of the line path.
 * PARLEY_BENCH_ATTACH=0 skips the attach figures (and their history), for the relay alone;
 * PARLEY_BENCH_RELAY_IDLE_S makes the daemon sit that long with no traffic before the relay (as a
 * real one mostly sits); PARLEY_BENCH_DENO_FLAGS adds flags to the listener's daemon's `deno run`
 * (`--cpu-prof --cpu-prof-dir=DIR` for a CPU profile per thread). Each figure is printed with the
 * load average, since the machine may be shared.
 */
import { ApiClient } from "../tests/support/api.ts";
import { BouncerClient } from "../tests/support/bouncer_client.ts";
import { RawIrcClient } from "../tests/support/irc_client.ts";
import { startIrcServer } from "../tests/support/ngircd.ts";
import { freePort } from "../tests/support/ports.ts";
import { startServer, type TestServer } from "../tests/support/server.ts";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { attachAsGamja } from "./bouncer_support.ts";
import { cpuSeconds, p, StoredRows, threadCpu, threadSplit } from "./scale_support.ts";

const CHANNELS = 100;
const ATTACHES = 5;
const rate = Number(Deno.env.get("PARLEY_BENCH_RELAY_RATE") ?? 1000);
const seconds = Number(Deno.env.get("PARLEY_BENCH_RELAY_SECONDS") ?? 20);
const idleSeconds = Number(Deno.env.get("PARLEY_BENCH_RELAY_IDLE_S") ?? 0);
const ATTACH = Deno.env.get("PARLEY_BENCH_ATTACH") !== "0";
const EMAIL = "bench@example.com";
const PASSWORD = "correct horse battery";
const CHAT_CAPS = [
  "server-time",
  "message-tags",
  "batch",
  "echo-message",
  "labeled-response",
  "draft/chathistory",
  "draft/read-marker",
  "multi-prefix",
];
const PLAIN_CAPS = ["server-time", "multi-prefix"];

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ircPort = freePort();

const irc = await startIrcServer();
const channels = Array.from({ length: CHANNELS }, (_, i) => `#b${i}`);
/** Lines lost over every relay phase: not stored, or not received by an attached client. */
let lost = 0;

/** A daemon with one user and one connection to the ngircd, as nick `nick`, once connected. */
async function daemonWith(server: TestServer, nick: string, join = false) {
  const api = new ApiClient(server.url);
  await api.register(EMAIL, PASSWORD);
  const made = await api.post("/api/connections", {
    url: `${irc.url}?nick=${nick}`,
    ...(join
      ? {
        on_connect_commands: Array.from(
          { length: CHANNELS / 25 },
          (_, i) => `JOIN ${channels.slice(i * 25, i * 25 + 25).join(",")}`,
        ),
      }
      : {}),
  });
  const cid = made.body.connection_id as string;
  for (let i = 0; i < 600; i++) {
    const r = await api.get("/api/connections");
    if (
      r.body.connections.find((c: { connection_id: string }) => c.connection_id === cid)
        ?.state === "connected"
    ) break;
    await sleep(50);
  }
  return cid;
}

/** Flags for the listener's daemon's `deno run` (e.g. `--cpu-prof --cpu-prof-dir=DIR`). */
const extraFlags = (Deno.env.get("PARLEY_BENCH_DENO_FLAGS") ?? "").split(" ").filter(Boolean);
const server = await startServer({
  env: {
    PARLEY_LOG_LEVEL: "warn",
    PARLEY_IRC_LISTEN: `irc://127.0.0.1:${ircPort}`,
    PARLEY_METRICS: "1",
  },
  ...(extraFlags.length ? { permissions: ["-A", ...extraFlags] } : {}),
});
let off: TestServer | undefined;
const speaker = await RawIrcClient.connect(irc.port, "speaker");
/** A plain client on ngircd in every bench channel: when ngircd relayed each line, who joined. */
const watcher = await RawIrcClient.connect(irc.port, "watcher");
try {
  const cid = await daemonWith(server, "listener");
  const login = `${EMAIL}/${cid}`;
  // The connection joins 100 channels, from an attached client as a user would.
  const setup = await BouncerClient.attach(ircPort, login, PASSWORD, [], "setup");
  for (let i = 0; i < CHANNELS; i += 25) {
    await setup.send(`JOIN ${channels.slice(i, i + 25).join(",")}`);
    await watcher.send(`JOIN ${channels.slice(i, i + 25).join(",")}`);
  }
  await setup.waitFor((l) => l.command === "366" && l.params[1] === channels.at(-1), 0, 60_000);
  const joinedAt = performance.now();
  await speaker.join(channels[0]);
  for (const ch of channels) {
    await speaker.send(`JOIN ${ch}`);
    if (!ATTACH) continue;
    for (let i = 0; i < 20; i++) await speaker.say(ch, `line ${i} of history in ${ch}`);
  }
  await sleep(1000);
  setup.close();

  if (ATTACH) {
    const kinds = [
      ["chathistory", CHAT_CAPS],
      ["replay", PLAIN_CAPS],
      ["fetch", CHAT_CAPS],
      ["sync", PLAIN_CAPS],
    ] as const;
    for (const [kind, caps] of kinds) {
      // The daemon asks each channel's modes after joining it, 15 within 10 s and the rest one
      // every 2 s behind the flood control, so it knows all 100 about 190 s after the joins;
      // asking itself would teach it.
      if (kind === "sync") await sleep(joinedAt + (CHANNELS * 2 + 20) * 1000 - performance.now());
      const times: number[] = [];
      for (let i = 0; i < ATTACHES; i++) {
        const started = performance.now();
        const c = await BouncerClient.attach(ircPort, `${login}@bench${kind}${i}`, PASSWORD, [
          ...caps,
        ]);
        if (kind === "fetch") {
          const at = c.lines.length;
          await c.send(channels.map((ch) => `CHATHISTORY LATEST ${ch} * 50`).join("\r\n"));
          let ended = 0;
          await c.waitFor(
            (l) => l.command === "BATCH" && l.params[0].startsWith("-") && ++ended === CHANNELS,
            at,
            60_000,
          );
        } else if (kind === "sync") {
          const at = c.lines.length;
          await c.send(channels.map((ch) => `MODE ${ch}`).join("\r\n"));
          let told = 0;
          await c.waitFor((l) => l.command === "324" && ++told === CHANNELS, at, 300_000);
        } else {
          await c.send("PING :ready");
          await c.waitFor((l) => l.command === "PONG" && l.params[1] === "ready", 0, 60_000);
        }
        times.push(performance.now() - started);
        const joins = c.lines.filter((l) => l.command === "366").length;
        if (joins < CHANNELS) throw new Error(`attached with ${joins} channels of ${CHANNELS}`);
        c.close();
        await sleep(200);
      }
      times.sort((a, b) => a - b);
      console.log(
        `bouncer_attach_${kind}_median: ${times[times.length >> 1].toFixed(0)} ms ` +
          `(max ${times.at(-1)!.toFixed(0)} ms, ${CHANNELS} channels, load ${load()})`,
      );
    }
  }

  if (idleSeconds > 0) await sleep(idleSeconds * 1000);
  // Two seconds unmeasured first: the daemon's code for the line path compiled, as it would be.
  await relay(server, "warm", [], rate * 2);
  const none = await relay(server, "none", []);
  printRelay("0_clients", none);
  const clients = [await attachAsGamja(ircPort, `${login}@relay0`, PASSWORD, "r0")];
  printRelay("1_clients", await relay(server, "one", clients));
  for (let i = 1; i < 3; i++) {
    clients.push(await attachAsGamja(ircPort, `${login}@relay${i}`, PASSWORD, `r${i}`));
  }
  const three = await relay(server, "three", clients);
  printRelay("3_clients", three);
  const more = (three.core - none.core) * 100;
  console.log(`bouncer_relay_cpu_3_clients_more: ${more.toFixed(1)} % of a core`);
  for (const c of clients) c.close();
  await server.close();

  // The same connection and load on a daemon without the listener.
  off = await startServer({ env: { PARLEY_LOG_LEVEL: "warn", PARLEY_METRICS: "1" } });
  await daemonWith(off, "quiet", true);
  await watcher.waitFor(
    (l) => l.command === "JOIN" && l.nick === "quiet" && l.params[0] === channels.at(-1),
    60_000,
  );
  await sleep(1000);
  await relay(off, "warmoff", [], rate * 2);
  printRelay("off", await relay(off, "off", []));
} finally {
  await speaker.close();
  await watcher.close();
  await server.close();
  await off?.close();
  await irc.close();
}
if (lost) {
  console.error(`# ${lost} lines lost`);
  Deno.exit(1);
}

interface Relayed {
  /** Daemon CPU seconds per upstream line. */
  perLine: number;
  /** Share of a core (0 to 1) over the phase. */
  core: number;
  /** Lines a second the speaker reached. */
  rate: number;
  /** Upstream lines per socket read the daemon handed to its main thread. */
  linesPerRead: number;
  /** The CPU a line per thread of the daemon, µs (`deno=... worker-1=...`). */
  threads: string;
  /** Lines not stored. */
  lostStored: number;
  /** Lines the attached client that received the fewest did not receive. */
  lostClient: number;
  /** ms from ngircd to the attached clients, every client's every line. */
  latency: number[];
}

/**
 * The speaker says `total` lines at `rate` lines/s in the first channel: the daemon's CPU from the
 * first line until the last is stored and every client in `clients` has it.
 */
async function relay(
  d: TestServer,
  tag: string,
  clients: BouncerClient[],
  total = rate * seconds,
): Promise<Relayed> {
  const pid = d.pid?.();
  if (!pid) throw new Error("the daemon is not running");
  const prefix = `${tag} `;
  const index = (l: { command: string; params: string[] }) =>
    l.command === "PRIVMSG" && l.params[1]?.startsWith(prefix)
      ? Number(l.params[1].slice(prefix.length, l.params[1].indexOf(" ", prefix.length)))
      : -1;
  const timeout = (total / rate) * 1000 + 120_000;
  const fromIrcd = new Float64Array(total).fill(NaN);
  const watched = watcher.waitFor((l) => {
    const i = index(l);
    if (i >= 0) fromIrcd[i] = performance.now();
    return i === total - 1;
  }, timeout).catch(() => undefined);
  const got = clients.map(() => ({ n: 0, at: new Float64Array(total).fill(NaN) }));
  const received = clients.map((c, k) =>
    c.waitFor(
      (l) => {
        const i = index(l);
        if (i < 0) return false;
        got[k].n++;
        got[k].at[i] = performance.now();
        return i === total - 1;
      },
      c.lines.length,
      timeout,
    ).catch(() => undefined)
  );
  const db = new DatabaseSync(join(d.home, "parley.db"), { readOnly: true });
  const convs = (db.prepare("SELECT id FROM conversations WHERE conversation_id = ?")
    .all(channels[0]) as { id: number }[]).map((r) => r.id);
  const rows = new StoredRows(db, convs, "speaker", 20);

  const readsBefore = await readsOf(d);
  const before = cpuSeconds(pid);
  const threadsBefore = threadCpu(pid);
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    await speaker.say(channels[0], `${prefix}${i} some ordinary chat text`);
  }
  const sent = performance.now();
  // The daemon has read, stored and relayed everything once the last line is stored and every
  // client has it (or the wait ran out: lines lost).
  await rows.until(total, 60_000);
  await Promise.all(received);
  const cpu = cpuSeconds(pid) - before;
  const threads = threadSplit(threadsBefore, threadCpu(pid), 1e6 / total, 0);
  const readsAfter = await readsOf(d);
  const elapsed = (performance.now() - started) / 1000;
  await watched;
  db.close();
  const latency: number[] = [];
  for (const g of got) {
    for (let i = 0; i < total; i++) {
      const ms = g.at[i] - fromIrcd[i];
      if (Number.isFinite(ms)) latency.push(ms);
    }
  }
  const lostStored = total - rows.count;
  const lostClient = Math.max(0, ...got.map((g) => total - g.n));
  lost += lostStored + lostClient;
  return {
    perLine: cpu / total,
    core: cpu / elapsed,
    rate: total / ((sent - started) / 1000),
    linesPerRead: (readsAfter.lines - readsBefore.lines) / (readsAfter.reads - readsBefore.reads),
    threads,
    lostStored,
    lostClient,
    latency,
  };
}

/** The daemon's IRC lines received and the socket reads they came in, from its /metrics. */
async function readsOf(d: TestServer): Promise<{ lines: number; reads: number }> {
  const text = await (await fetch(`${d.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  return {
    lines: value("parley_irc_lines_received_total"),
    reads: value("parley_irc_reads_total"),
  };
}

function printRelay(name: string, r: Relayed) {
  const at = `${r.rate.toFixed(0)} lines/s, load ${load()}`;
  console.log(`bouncer_relay_cpu_per_line_${name}: ${(r.perLine * 1e6).toFixed(1)} µs (${at})`);
  console.log(`bouncer_relay_cpu_${name}: ${(r.core * 100).toFixed(1)} % of a core (${at})`);
  console.log(`bouncer_relay_lines_per_read_${name}: ${r.linesPerRead.toFixed(2)} lines`);
  console.log(`bouncer_relay_threads_${name}: ${r.threads} (µs per line)`);
  console.log(
    `bouncer_relay_lost_${name}: ${r.lostStored + r.lostClient} lines ` +
      `(${r.lostStored} not stored, ${r.lostClient} not received by a client)`,
  );
  if (r.latency.length) {
    console.log(`bouncer_relay_latency_p50_${name}: ${p(r.latency, 0.5).toFixed(2)} ms`);
    console.log(`bouncer_relay_latency_p99_${name}: ${p(r.latency, 0.99).toFixed(2)} ms`);
  }
}
