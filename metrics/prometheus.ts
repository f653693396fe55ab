/**
 * The Prometheus registry behind `GET /metrics` (PARLEY_METRICS=1), built with prom-client and
 * loaded only then (routes/metrics.ts). Gauges are read from the running parts when scraped; the
 * counters and histograms are fed by lib/metrics.ts. No metric has a label that names a user, a
 * nick, a channel or a network: states, route patterns, methods and status codes only.
 */
import client from "prom-client";
import type { AppDeps } from "../http/env.ts";
import { ircLines, setObservers } from "../lib/metrics.ts";
import { strayErrors } from "../lib/stray_errors.ts";

/** A registry of this process's metrics, and its text as Prometheus reads it. */
export interface Prometheus {
  contentType: string;
  text(): Promise<string>;
}

/** Seconds: from a cached read to a slow commit or a long request. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Builds the registry over `deps` and puts its histograms behind lib/metrics.ts's observers. */
export function prometheus(deps: AppDeps): Prometheus {
  const register = new client.Registry();
  // Memory, CPU, file descriptors, event-loop delay (nodejs_eventloop_lag_*), the heap.
  client.collectDefaultMetrics({ register });

  const states = ["disconnected", "queued", "connecting", "connected"];
  new client.Gauge({
    name: "parley_irc_connections",
    help: "IRC connections this node runs, by state",
    labelNames: ["state"],
    registers: [register],
    collect() {
      this.reset();
      const byState = deps.irc.stats?.().byState ?? {};
      for (const state of new Set([...states, ...Object.keys(byState)])) {
        this.set({ state }, byState[state] ?? 0);
      }
    },
  });
  new client.Gauge({
    name: "parley_irc_send_queue_lines",
    help: "Lines waiting for the token bucket, all connections together",
    registers: [register],
    collect() {
      this.set(deps.irc.stats?.().sendQueued ?? 0);
    },
  });
  new client.Gauge({
    name: "parley_irc_send_queue_max_lines",
    help: "Lines waiting for the token bucket on the connection with the most",
    registers: [register],
    collect() {
      this.set(deps.irc.stats?.().sendQueueMax ?? 0);
    },
  });
  for (
    const [name, help, read] of [
      ["parley_irc_lines_received_total", "IRC lines read from servers", () => ircLines.in],
      ["parley_irc_lines_sent_total", "IRC lines written to servers", () => ircLines.out],
      [
        "parley_irc_reads_total",
        "Reads of IRC servers' sockets the received lines came in",
        () => ircLines.reads,
      ],
      [
        "parley_uncaught_errors_total",
        "Errors no code caught, logged and survived (each is a fault to report)",
        () => strayErrors.count,
      ],
    ] as const
  ) {
    let counted = 0;
    new client.Counter({
      name,
      help,
      registers: [register],
      collect() {
        const now = read();
        if (now > counted) this.inc(now - counted);
        counted = now;
      },
    });
  }
  new client.Gauge({
    name: "parley_event_sockets",
    help: "Web client WebSockets (/events) open on this node",
    registers: [register],
    collect() {
      let n = 0;
      for (const userId of deps.bus.localUsers()) n += deps.bus.localCount(userId);
      this.set(n);
    },
  });
  new client.Gauge({
    name: "parley_bouncer_clients",
    help: "IRC clients attached to the bouncer on this node",
    registers: [register],
    collect() {
      this.set(deps.bouncer?.clients?.() ?? 0);
    },
  });

  const requests = new client.Counter({
    name: "parley_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status",
    labelNames: ["operation", "method", "status"],
    registers: [register],
  });
  const requestSeconds = new client.Histogram({
    name: "parley_http_request_duration_seconds",
    help: "Time to answer an HTTP request (to its headers), by route pattern and method",
    labelNames: ["operation", "method"],
    buckets: SECONDS,
    registers: [register],
  });
  const writeSeconds = new client.Histogram({
    name: "parley_store_write_seconds",
    help: "Time to commit one batch of messages",
    buckets: SECONDS,
    registers: [register],
  });
  const batchSize = new client.Histogram({
    name: "parley_store_write_batch_messages",
    help: "Messages committed in one batch",
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers: [register],
  });
  setObservers({
    httpRequest(operation, method, status, seconds) {
      requests.inc({ operation, method, status: String(status) });
      requestSeconds.observe({ operation, method }, seconds);
    },
    storeBatch(messages, seconds) {
      writeSeconds.observe(seconds);
      batchSize.observe(messages);
    },
  });

  return { contentType: register.contentType, text: () => register.metrics() };
}
