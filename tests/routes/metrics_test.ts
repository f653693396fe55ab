/**
 * `GET /metrics` (routes/metrics.ts, metrics/prometheus.ts): absent unless PARLEY_METRICS=1; then
 * Prometheus text counting connections, lines, requests, commits and sockets, and after real
 * traffic no email, nick, channel or message text anywhere in it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";
import { startIrcServer } from "../support/ngircd.ts";
import { poll } from "../support/poll.ts";
import { setObservers } from "../../lib/metrics.ts";
import { serveMetrics } from "../../routes/metrics.ts";

/** The value of one sample (`name{labels} value`), or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

Deno.test("/metrics is not there unless PARLEY_METRICS=1", async () => {
  const a = await startApp();
  try {
    const res = await a.request("/metrics");
    assertEquals(res.status, 404);
    assert(!String(res.body).includes("parley_"), "no metrics in the answer");
  } finally {
    await a.close();
  }
});

Deno.test("/metrics counts what happened and names no user, nick, channel or message", async () => {
  const irc = await startIrcServer();
  const a = await startApp({ PARLEY_METRICS: "1", PARLEY_TEST_FAST_IRC: "1" });
  try {
    const email = "zelda.metrics@example.com";
    const api = a.client();
    await api.register(email);
    const made = await api.post("/api/connections", {
      url: `${irc.url}/%23hiddenchan?nick=quietnick`,
    });
    assertEquals(made.status, 200, JSON.stringify(made.body));
    const id = made.body.connection_id;
    const scrape = async () => {
      const res = await a.request("/metrics");
      assertEquals(res.status, 200);
      assert(String(res.headers.get("content-type")).startsWith("text/plain"));
      return String(res.body);
    };
    await poll(
      "connected",
      async () => sample(await scrape(), 'parley_irc_connections{state="connected"}') === 1,
    );
    const sent = await api.post(
      `/api/connection/${id}/conversation/${encodeURIComponent("#hiddenchan")}/messages`,
      { message: "a very private sentence" },
    );
    assertEquals(sent.status, 200, JSON.stringify(sent.body));
    // A web client's socket, as /events holds one.
    const unsubscribe = a.deps.bus.subscribe(1, () => {});
    await a.searchable();
    const text = await scrape();
    unsubscribe();

    assert(sample(text, "parley_irc_lines_received_total")! > 0, "lines in");
    assert(sample(text, "parley_irc_lines_sent_total")! > 0, "lines out");
    assert(sample(text, "parley_irc_reads_total")! > 0, "reads");
    assertEquals(sample(text, 'parley_irc_connections{state="queued"}'), 0);
    assertEquals(sample(text, "parley_irc_send_queue_lines"), 0);
    assertEquals(sample(text, "parley_event_sockets"), 1);
    assertEquals(sample(text, "parley_bouncer_clients"), 0);
    assertEquals(sample(text, "parley_uncaught_errors_total"), 0);
    assert(
      sample(
        text,
        'parley_http_requests_total{operation="/api/connections",method="POST",status="200"}',
      ) === 1,
      "the connection's creation, by its route",
    );
    assert(
      text.includes(
        'parley_http_request_duration_seconds_count{operation="/api/connection/:connection_id/conversation/:conversation_id/messages",method="POST"} 1',
      ),
      "the send, by its route pattern",
    );
    // Either backend's writer: SQLite's and PostgreSQL's (the runner's PostgreSQL pass).
    assert(sample(text, "parley_store_write_batch_messages_count")! > 0, "a commit");
    assert(sample(text, "parley_store_write_seconds_count")! > 0, "its time");
    assert(sample(text, "nodejs_eventloop_lag_seconds") !== undefined, "event-loop delay");
    assert(sample(text, "process_resident_memory_bytes")! > 0, "memory");
    for (const secret of [email, "zelda", "quietnick", "hiddenchan", "very private", id]) {
      assert(!text.includes(secret), `${secret} appears in /metrics`);
    }
  } finally {
    setObservers(undefined);
    await a.close();
    await irc.close();
  }
});

Deno.test("PARLEY_METRICS=http://HOST:PORT serves /metrics there only", async () => {
  const a = await startApp({ PARLEY_METRICS: "http://127.0.0.1:0" });
  const server = serveMetrics(a.deps.config.metricsListen!, a.deps);
  try {
    assertEquals((await a.request("/metrics")).status, 404, "not on the listen address");
    const base = `http://127.0.0.1:${server.addr.port}`;
    const res = await fetch(`${base}/metrics`);
    assertEquals(res.status, 200);
    const text = await res.text();
    assert(sample(text, 'parley_irc_connections{state="connected"}') === 0, text.slice(0, 200));
    // Requests to the app are still counted.
    await a.request("/healthz");
    const again = await (await fetch(`${base}/metrics`)).text();
    assertEquals(
      sample(again, 'parley_http_requests_total{operation="/healthz",method="GET",status="200"}'),
      1,
    );
    const other = await fetch(`${base}/api`);
    await other.body?.cancel();
    assertEquals(other.status, 404);
  } finally {
    await server.shutdown();
    setObservers(undefined);
    await a.close();
  }
});
