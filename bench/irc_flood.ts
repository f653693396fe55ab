/**
 * Benchmark: a burst of PRIVMSGs through a real ngircd into a real daemon (one user, one
 * connection, one channel). A raw client floods `PARLEY_BENCH_FLOOD` lines (default 200,000) in
 * 2,000-line writes; the figure is the time until the last one is readable through the API. A
 * plain counting socket reader in the same channel (on its own thread) gets the same flood in the
 * same run: its rate is the pipe's limit, and the ratio to it is the figure that survives a busy
 * machine.
 *
 * ngircd keeps at most 32 KiB of unsent data per client (WRITEBUFFER_MAX_LEN, a compile-time
 * constant; there is no SendQ setting) and closes a client whose buffer would pass that ("Write
 * buffer space exhausted"); on top of it only the kernel's socket buffers hold a burst. So a
 * reader slower than the flood is dropped as on a real network. `MaxPenaltyTime = 0` (in
 * tests/support/ngircd.ts) turns off ngircd's throttling of the flooding client.
 *
 * Targets (docs/performance.md): 0 lost, never dropped, >= 40,000 msg/s and >= 90% of the raw reader,
 * RSS idle < 75 MB and < 110 MB 30 s after the flood. How busy the machine was meanwhile is printed
 * too, and each daemon thread's CPU (`irc_flood_daemon_threads_s`): on two cores shared with the
 * flooder, ngircd and the plain reader, CPU Parley gives back speeds the pipe up as well.
 * `PARLEY_BENCH_DENO_FLAGS` adds flags to the daemon's `deno run` (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof`: the profile is written when the daemon exits at the end), and
 * `PARLEY_BENCH_DAEMON_OUTPUT=FILE` keeps what the daemon printed.
 */
import { FIRST_EVENT_CODE } from "../protocol/messages.ts";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { ApiClient } from "../tests/support/api.ts";
import { Flooder, floodText } from "../tests/support/flood.ts";
import { startIrcServer } from "../tests/support/ngircd.ts";
import { startServer } from "../tests/support/server.ts";
import { cpuSeconds, threadCpu, threadSplit } from "./scale_support.ts";

const total = Number(Deno.env.get("PARLEY_BENCH_FLOOD") ?? 200_000);
const settleMs = Number(Deno.env.get("PARLEY_BENCH_FLOOD_SETTLE_MS") ?? 30_000);
const extraFlags = (Deno.env.get("PARLEY_BENCH_DENO_FLAGS") ?? "").split(" ").filter(Boolean);
/** Give up when the daemon stores nothing new for this long. */
const STALL_MS = 15_000;
const CHANNEL = "#flood";

function line(name: string, value: number | string, unit = "") {
  console.log(`${name}: ${value}${unit ? ` ${unit}` : ""}`);
}

/** The daemon's pid: the process whose environment names its data folder. */
function daemonPid(home: string): number {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const env = Deno.readTextFileSync(`/proc/${entry.name}/environ`).split("\0");
      const cmd = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (env.includes(`PARLEY_HOME=${home}`) && cmd.includes("daemon")) return Number(entry.name);
    } catch { /* gone, or not ours */ }
  }
  throw new Error(`no daemon process for ${home}`);
}

/** A field of /proc/PID/status in MB (VmRSS: resident now; VmHWM: the peak). */
function statusMb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

/**
 * Resident memory by mapping (/proc/PID/smaps), in MB: "anon" is the JavaScript heaps of the main
 * thread and the workers plus malloc (SQLite's page caches); files are named by their base name
 * (parley.db and search.db are memory-mapped, their -shm files are the WAL indexes).
 */
function rssByMapping(pid: number): string {
  const sums = new Map<string, number>();
  let key = "anon";
  for (const l of Deno.readTextFileSync(`/proc/${pid}/smaps`).split("\n")) {
    const header = l.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (header) {
      const path = header[1].trim();
      key = !path || path.startsWith("[") ? "anon" : path.split("/").pop()!;
      if (key.startsWith("deno") || key.endsWith(".so") || /\.so\./.test(key)) key = "code";
      continue;
    }
    const rss = l.match(/^Rss:\s+(\d+) kB/);
    if (rss) sums.set(key, (sums.get(key) ?? 0) + Number(rss[1]));
  }
  return [...sums].filter(([, kb]) => kb >= 1024).sort((a, b) => b[1] - a[1])
    .map(([k, kb]) => `${k}=${Math.round(kb / 1024)}`).join(" ");
}

/** The machine's CPU seconds so far, busy and in all (/proc/stat's first line, every core). */
function machineCpu(): { busy: number; all: number } {
  const f = Deno.readTextFileSync("/proc/stat").split("\n")[0].trim().split(/\s+/).slice(1)
    .map(Number);
  const all = f.reduce((a, b) => a + b, 0);
  const idle = f[3] + (f[4] ?? 0); // idle, iowait
  return { busy: (all - idle) / 100, all: all / 100 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const irc = await startIrcServer();
const server = await startServer({
  env: { PARLEY_LOG_LEVEL: "warn" },
  permissions: ["-A", ...extraFlags],
});
/** The raw reader, on its own thread (tests/support/flood_reader_worker.ts). */
class ReaderThread {
  count = 0;
  lastAt = 0;
  dropped = "";
  #worker = new Worker(new URL("../tests/support/flood_reader_worker.ts", import.meta.url), {
    type: "module",
  });
  #closed: Promise<void>;
  private constructor(ready: () => void) {
    let closed = () => {};
    this.#closed = new Promise((r) => (closed = r));
    this.#worker.onmessage = (e) => {
      if (e.data.ready) return ready();
      // Its clock is epoch ms; ours is performance.now().
      this.count = e.data.count;
      this.lastAt = e.data.lastAt - performance.timeOrigin;
      this.dropped = e.data.dropped;
      if (e.data.closed) closed();
    };
  }
  static start(port: number, nick: string, channel: string): Promise<ReaderThread> {
    return new Promise((resolve) => {
      const r: ReaderThread = new ReaderThread(() => resolve(r));
      r.#worker.postMessage({ port, nick, channel });
    });
  }
  async close() {
    this.#worker.postMessage("close");
    await this.#closed;
    this.#worker.terminate();
  }
}

let reader: ReaderThread | undefined;
let flooder: Flooder | undefined;
try {
  const pid = daemonPid(server.home);
  line("load_avg_1m_before", Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  const api = new ApiClient(server.url);
  await api.register("flood@example.com");
  const created = await api.post("/api/connections", {
    url: `${irc.url}?nick=parley`,
    conversation_id: CHANNEL,
  });
  const cid = created.body.connection_id as string;
  reader = await ReaderThread.start(irc.port, "rawreader", CHANNEL);
  flooder = await Flooder.connect(irc.port, "flooder", CHANNEL);
  const messagesPath = `/api/connection/${cid}/conversation/${
    encodeURIComponent(CHANNEL)
  }/messages?limit=1`;
  // Listed once the daemon has joined (a channel it has not joined is not listed).
  const joined = async () =>
    ((await api.get("/api/conversations")).body.conversations as { conversation_id: string }[])
      .some((c) => c.conversation_id === CHANNEL);
  const deadline = Date.now() + 30_000;
  while (!(await joined())) {
    if (Date.now() > deadline) throw new Error(`parley did not join ${CHANNEL}`);
    await sleep(100);
  }
  await sleep(5000); // registration, MOTD and join settle before the idle figure
  line("rss_idle_mb", statusMb(pid, "VmRSS"), "MB");
  line("rss_idle_by_mapping", rssByMapping(pid), "MB");

  const lastText = floodText(total - 1);
  const cpuBefore = cpuSeconds(pid);
  const threadsBefore = threadCpu(pid);
  let threadsDone = threadsBefore;
  const machineBefore = machineCpu();
  let machineDone = machineBefore;
  let daemonDone = cpuBefore;
  const started = performance.now();
  let sentAt = 0;
  const sending = flooder.send(total).then(() => void (sentAt = performance.now()));
  let parleyDoneAt = 0;
  let lastProgress = performance.now();
  let lastSeen = "";
  while (performance.now() - lastProgress < STALL_MS) {
    const res = await api.get(messagesPath);
    const text = res.body?.messages?.[0]?.message ?? "";
    if (text === lastText) {
      parleyDoneAt = performance.now();
      machineDone = machineCpu();
      daemonDone = cpuSeconds(pid);
      threadsDone = threadCpu(pid);
      break;
    }
    if (text !== lastSeen) {
      lastSeen = text;
      lastProgress = performance.now();
    }
    await sleep(50);
  }
  await sending;
  const flooded = performance.now();
  // The raw reader is far ahead; a moment for its last bytes.
  while (reader.count < total && !reader.dropped && performance.now() - flooded < 5000) {
    await sleep(20);
  }

  const cpu = cpuSeconds(pid) - cpuBefore;
  const conns = (await api.get("/api/connections")).body.connections as {
    state: string;
    info?: { reason?: string };
  }[];
  /** The flooder's messages stored so far. */
  const storedNow = (db: DatabaseSync) =>
    // Its messages only: the flooder's join is stored too, as a channel event (type >= 4), which
    // made the count one too many ("lost: -1").
    (db.prepare(
      `SELECT count(*) AS n FROM messages WHERE sender = 'flooder' AND type < ${FIRST_EVENT_CODE}`,
    ).get() as { n: number }).n;
  const db = new DatabaseSync(join(server.home, "parley.db"), { readOnly: true });
  const stored = storedNow(db);
  // Which lines are missing, when some are: the first few numbers say where the loss was.
  const missing: number[] = [];
  if (stored < total) {
    const have = new Set(
      (db.prepare(`SELECT text FROM messages WHERE sender = 'flooder'`).all() as { text: string }[])
        .map((r) => Number(r.text.slice(1, r.text.indexOf(" ")))),
    );
    for (let i = 0; i < total && missing.length < 10; i++) if (!have.has(i)) missing.push(i);
  }
  db.close();
  // ngircd's log line when it closes a client it cannot write to fast enough.
  const dropLog = irc.output().split("\n").filter((l) => /exhausted|Write error/.test(l));

  const seconds = (t: number) => (t - started) / 1000;
  const parleyRate = parleyDoneAt ? total / seconds(parleyDoneAt) : 0;
  const rawRate = reader.count === total ? total / seconds(reader.lastAt) : 0;
  line("irc_flood_messages", total, "messages");
  line("irc_flood_send_seconds", seconds(sentAt).toFixed(2), "s");
  line("irc_flood_msgs_per_s", Math.round(parleyRate), "msg/s");
  line("irc_flood_lost", total - stored, "messages");
  line("irc_flood_stored", stored, "messages");
  if (missing.length) line("irc_flood_missing_first", missing.join(" "));
  if (!parleyDoneAt) {
    line("irc_flood_stored_msgs_per_s", Math.round(stored / seconds(lastProgress)), "msg/s");
  }
  line(
    "irc_flood_dropped",
    dropLog.length ? `yes: ${dropLog.map((l) => l.trim()).join("; ")}` : "no",
  );
  line("irc_flood_connection_state", `${conns[0]?.state} ${conns[0]?.info?.reason ?? ""}`.trim());
  line("raw_reader_msgs_per_s", Math.round(rawRate), "msg/s");
  line("raw_reader_received", reader.count, "messages");
  if (reader.dropped) line("raw_reader_dropped", reader.dropped);
  // CPU per stored message: what a busy machine changes least (includes the API polling).
  line("irc_flood_daemon_cpu_s", cpu.toFixed(2), "s");
  line("irc_flood_cpu_us_per_msg", stored ? Math.round(cpu / stored * 1e6) : "n/a", "us");
  line("irc_flood_ratio", rawRate ? (parleyRate / rawRate).toFixed(3) : "n/a");
  if (parleyDoneAt) {
    // From the flood's start until Parley had stored it all: how busy every core was, and the CPU
    // of everything else (ngircd, the flooder, the raw reader, this bench). A machine already
    // busy throughout has no CPU left for Parley to go faster with, whatever thread it ran on.
    const busy = machineDone.busy - machineBefore.busy;
    const all = machineDone.all - machineBefore.all;
    line("irc_flood_machine_busy_pct", (busy / all * 100).toFixed(1), "%");
    line("irc_flood_daemon_cpu_to_stored_s", (daemonDone - cpuBefore).toFixed(2), "s");
    line("irc_flood_others_cpu_s", (busy - (daemonDone - cpuBefore)).toFixed(2), "s");
    line("irc_flood_daemon_threads_s", threadSplit(threadsBefore, threadsDone));
  }
  line("rss_peak_mb", statusMb(pid, "VmHWM"), "MB");
  line("rss_after_flood_now_mb", statusMb(pid, "VmRSS"), "MB");
  await sleep(settleMs);
  line("rss_after_flood_mb", statusMb(pid, "VmRSS"), "MB");
  if (stored < total) {
    // Late or never: lines stored after the poll gave up were slow, not lost.
    const again = new DatabaseSync(join(server.home, "parley.db"), { readOnly: true });
    const later = storedNow(again);
    again.close();
    line("irc_flood_stored_after_settle", later, "messages");
  }
  line("rss_after_flood_by_mapping", rssByMapping(pid), "MB");
  line("load_avg_1m_after", Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
} finally {
  flooder?.close();
  await reader?.close();
  await server.stop();
  // With e.g. `--v8-flags=--trace-gc` in PARLEY_BENCH_DENO_FLAGS: the daemon's GC lines.
  const keep = Deno.env.get("PARLEY_BENCH_DAEMON_OUTPUT");
  if (keep) await Deno.writeTextFile(keep, server.output());
  await server.close();
  await irc.close();
}
