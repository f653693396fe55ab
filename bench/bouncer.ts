/**
 * Benchmark: the bouncer listener of a real daemon (child process) on a real ngircd.
 * - `bouncer_attach_*`: from TCP connect to ready to type (SASL, the burst of a connection in
 *   100 channels, the replay for a client without chat history; a PING answered after all of it),
 *   for a client with chat history (no replay) and one without. Target: under 1 s.
 * - `bouncer_attach_fetch_*`: the same for a client with chat history that then fetches each
 *   channel's history as gamja and Goguma do (`CHATHISTORY LATEST <channel> * 50`, all 100 sent
 *   at once), ready when the 100th batch has ended. Target: under 1 s.
 * - `bouncer_relay_cpu_*`: the daemon's CPU (utime + stime from /proc) while a speaker says
 *   PARLEY_BENCH_RELAY_RATE lines/s (default 1,000) for PARLEY_BENCH_RELAY_SECONDS (default 5) in
 *   one of those channels, with no client attached and with 3. Target: 3 clients cost under 10% of
 *   a core more than none.
 * Each figure is printed with the load average, since the machine may be shared.
 */
import { ApiClient } from "../tests/support/api.ts";
import { BouncerClient } from "../tests/support/bouncer_client.ts";
import { RawIrcClient } from "../tests/support/irc_client.ts";
import { startIrcServer } from "../tests/support/ngircd.ts";
import { freePort } from "../tests/support/ports.ts";
import { startServer } from "../tests/support/server.ts";

const CHANNELS = 100;
const ATTACHES = 5;
const rate = Number(Deno.env.get("PARLEY_BENCH_RELAY_RATE") ?? 1000);
const seconds = Number(Deno.env.get("PARLEY_BENCH_RELAY_SECONDS") ?? 5);
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

/** The process's CPU time so far, in seconds (utime + stime, fields 14 and 15 of stat). */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const irc = await startIrcServer();
const ircPort = freePort();
const server = await startServer({
  env: { PARLEY_LOG_LEVEL: "warn", PARLEY_IRC_LISTEN: `irc://127.0.0.1:${ircPort}` },
});
const channels = Array.from({ length: CHANNELS }, (_, i) => `#b${i}`);
try {
  const api = new ApiClient(server.url);
  await api.register(EMAIL, PASSWORD);
  const made = await api.post("/api/connections", { url: `${irc.url}?nick=listener` });
  const cid = made.body.connection_id as string;
  for (let i = 0; i < 600; i++) {
    const r = await api.get("/api/connections");
    if (
      r.body.connections.find((c: { connection_id: string }) => c.connection_id === cid)
        ?.state === "connected"
    ) break;
    await sleep(50);
  }
  const login = `${EMAIL}/${cid}`;
  // The connection joins 100 channels, from an attached client as a user would.
  const setup = await BouncerClient.attach(ircPort, login, PASSWORD, [], "setup");
  for (let i = 0; i < CHANNELS; i += 25) {
    await setup.send(`JOIN ${channels.slice(i, i + 25).join(",")}`);
  }
  await setup.waitFor((l) => l.command === "366" && l.params[1] === channels.at(-1), 0, 60_000);
  const speaker = await RawIrcClient.connect(irc.port, "speaker");
  await speaker.join(channels[0]);
  for (const ch of channels) {
    await speaker.send(`JOIN ${ch}`);
    for (let i = 0; i < 20; i++) await speaker.say(ch, `line ${i} of history in ${ch}`);
  }
  await sleep(1000);
  setup.close();

  const kinds = [["chathistory", CHAT_CAPS], ["replay", PLAIN_CAPS], ["fetch", CHAT_CAPS]] as const;
  for (const [kind, caps] of kinds) {
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

  const pid = server.pid?.();
  if (!pid) throw new Error("the daemon is not running");
  /** The daemon's share of a core while the speaker says `rate` lines/s for `seconds`. */
  const relayCpu = async (tag: string): Promise<{ cpu: number; rate: number }> => {
    const total = rate * seconds;
    const before = cpuSeconds(pid);
    const started = performance.now();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      await speaker.say(channels[0], `${tag} ${i} some ordinary chat text`);
    }
    // The daemon has read, stored and relayed everything once the last line is in history.
    for (let i = 0; i < 600; i++) {
      const r = await api.get(
        `/api/connection/${cid}/conversation/${encodeURIComponent(channels[0])}/messages?limit=1`,
      );
      if (r.body.messages?.at(-1)?.message === `${tag} ${total - 1} some ordinary chat text`) break;
      await sleep(50);
    }
    const elapsed = (performance.now() - started) / 1000;
    return { cpu: (cpuSeconds(pid) - before) / elapsed, rate: total / elapsed };
  };

  const none = await relayCpu("none");
  console.log(
    `bouncer_relay_cpu_0_clients: ${(none.cpu * 100).toFixed(1)} % of a core ` +
      `(${none.rate.toFixed(0)} lines/s, load ${load()})`,
  );
  const clients = [];
  for (let i = 0; i < 3; i++) {
    clients.push(
      await BouncerClient.attach(ircPort, `${login}@relay${i}`, PASSWORD, CHAT_CAPS, `r${i}`),
    );
  }
  const three = await relayCpu("three");
  const last = `three ${rate * seconds - 1} some ordinary chat text`;
  await Promise.all(
    clients.map((c) => c.waitFor((l) => l.params[1] === last, 0, 60_000)),
  );
  console.log(
    `bouncer_relay_cpu_3_clients: ${(three.cpu * 100).toFixed(1)} % of a core ` +
      `(${three.rate.toFixed(0)} lines/s, load ${load()})`,
  );
  const more = (three.cpu - none.cpu) * 100;
  console.log(`bouncer_relay_cpu_3_clients_more: ${more.toFixed(1)} % of a core`);
  for (const c of clients) c.close();
  await speaker.close();
} finally {
  await server.close();
  await irc.close();
}
