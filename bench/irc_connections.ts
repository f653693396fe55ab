/**
 * Benchmark: N IRC connections in one process (default 1000, `IRC_BENCH_CONNECTIONS`) against a
 * local ngircd. Prints how long connecting all took, the resident memory, and the CPU used while
 * they sit idle. Target (docs/performance.md): 1,000 connections under 300 MB, idle CPU under 2%.
 * `IRC_BENCH_CHANNEL=1` has every connection join one channel (so each sees all the others);
 * `IRC_BENCH_LISTENER=1` runs the bouncer listener's relay, which then takes every line.
 */
import process from "node:process";
import { parseConfig } from "../config.ts";
import { IrcManager } from "../irc/manager.ts";
import { Relay } from "../bouncer/relay.ts";
import { EventBus } from "../lib/bus.ts";
import { setLogLevel } from "../lib/log.ts";
import { openStore } from "../store/mod.ts";
import { startIrcServer } from "../tests/support/ngircd.ts";

const n = Number(Deno.env.get("IRC_BENCH_CONNECTIONS") ?? 1000);
// 65 s of idling includes one round of keep-alive PINGs (every 60 s per connection).
const idleSeconds = Number(Deno.env.get("IRC_BENCH_IDLE_SECONDS") ?? 65);
const channel = Deno.env.get("IRC_BENCH_CHANNEL") === "1";
const listener = Deno.env.get("IRC_BENCH_LISTENER") === "1";
setLogLevel("warn");

const irc = await startIrcServer();
const home = await Deno.makeTempDir({ prefix: "parley-bench-" });
const store = await openStore(home);
const config = { ...parseConfig({ PARLEY_HOME: home, PARLEY_CONNECT_DELAY: "0" }), secret: "x" };
const bus = new EventBus();
try {
  // An admin: only an admin may reach a loopback IRC server (irc/socket/target.ts).
  const user = await store.users.create("bench@example.com", "x", ["admin"]);
  for (let i = 0; i < n; i++) {
    await store.connections.create({
      userId: user.id,
      connectionId: `irc-bench-${i}`,
      name: "bench",
      url: `${irc.url}?nick=bench${i}`,
      onConnectCommands: channel ? ["/join #bench"] : [],
      wantedState: "connected",
    });
  }
  const rssBefore = Deno.memoryUsage().rss;
  const manager = new IrcManager({ config, store, bus });
  const relay = listener ? new Relay(bus) : undefined;
  relay?.start();
  manager.setOutlet(relay);
  const started = performance.now();
  const up = new Set<unknown>();
  bus.subscribe(user.id, (ev) => {
    if (ev.event === "state" && ev.type === "connection" && ev.state === "connected") {
      up.add(ev.connection_id);
    }
  });
  await manager.start();
  const deadline = Date.now() + 120_000;
  while (up.size < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const connectMs = performance.now() - started;
  console.log(`irc_connections_connected: ${up.size} connections`);
  console.log(`irc_connect_all: ${(connectMs / 1000).toFixed(2)} s`);
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 3000)); // let MOTDs and joins settle
  const rss = Deno.memoryUsage().rss;
  console.log(`irc_connections_rss: ${(rss / 1e6).toFixed(0)} MB`);
  console.log(`irc_connections_rss_added: ${((rss - rssBefore) / 1e6).toFixed(0)} MB`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const pct = ((cpu.user + cpu.system) / 1000) / (performance.now() - t0) * 100;
  console.log(`irc_connections_idle_cpu: ${pct.toFixed(2)} %`);
  await manager.stop();
  relay?.stop();
} finally {
  await store.close();
  await irc.close();
  await Deno.remove(home, { recursive: true });
}
