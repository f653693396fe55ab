/**
 * Benchmark: from an IRC line to the user's open `/events` socket, end to end (real daemon, real
 * ngircd, a raw IRC client speaking `IRC_BENCH_RATE` messages/s, default 1000, for
 * `IRC_BENCH_SECONDS`, default 5). Target (docs/performance.md): p99 under 50 ms at 1,000 messages/s.
 */
import { ApiClient } from "../tests/support/api.ts";
import { EventSocket } from "../tests/support/events.ts";
import { RawIrcClient } from "../tests/support/irc_client.ts";
import { startIrcServer } from "../tests/support/ngircd.ts";
import { startServer } from "../tests/support/server.ts";

const rate = Number(Deno.env.get("IRC_BENCH_RATE") ?? 1000);
const seconds = Number(Deno.env.get("IRC_BENCH_SECONDS") ?? 5);
const now = () => performance.timeOrigin + performance.now();

const irc = await startIrcServer();
const server = await startServer({ env: { PARLEY_LOG_LEVEL: "warn" } });
try {
  const api = new ApiClient(server.url);
  await api.register("bench@example.com");
  const speaker = await RawIrcClient.connect(irc.port, "speaker");
  await speaker.join("#bench");
  await api.post("/api/connections", {
    url: `${irc.url}?nick=listener`,
    conversation_id: "#bench",
  });
  await speaker.waitFor((l) => l.command === "JOIN" && l.nick === "listener", 30_000);
  const socket = await EventSocket.open(api);
  const latencies: number[] = [];
  socket.ws.addEventListener("message", (m) => {
    const ev = JSON.parse(String(m.data));
    if (ev.event === "message" && ev.from === "speaker") {
      latencies.push(now() - Number(ev.message.split(" ")[1]));
    }
  });
  const total = rate * seconds;
  const started = now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    await speaker.say("#bench", `m ${now()} some ordinary chat text`);
  }
  const deadline = now() + 30_000;
  while (latencies.length < total && now() < deadline) await new Promise((r) => setTimeout(r, 50));
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  console.log(`irc_to_socket_messages: ${latencies.length} of ${total} messages`);
  console.log(`irc_to_socket_rate: ${(total / ((now() - started) / 1000)).toFixed(0)} messages/s`);
  console.log(`irc_to_socket_p50: ${pct(0.5).toFixed(1)} ms`);
  console.log(`irc_to_socket_p99: ${pct(0.99).toFixed(1)} ms`);
  await socket.close();
  await speaker.close();
} finally {
  await server.close();
  await irc.close();
}
