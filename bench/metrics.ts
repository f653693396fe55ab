/**
 * Benchmark: what PARLEY_METRICS=1 costs. The same app in process, metrics off and on, answers
 * `GET /sw/info` (a route that reads nothing) in rounds of 2,000; the median round's time per
 * request, off and on, and the difference: the request metrics' middleware and histogram. Then
 * the median time of a scrape of `/metrics`.
 */
import { startApp, type TestApp } from "../tests/support/app.ts";
import { setLogLevel } from "../lib/log.ts";
import { setObservers } from "../lib/metrics.ts";

setLogLevel("warn");
const ROUNDS = 15;
const PER_ROUND = 2000;
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];

/** The median microseconds per request over the rounds. */
async function perRequest(a: TestApp, path: string, n = PER_ROUND): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    for (let i = 0; i < n; i++) await (await a.app.request(path)).arrayBuffer();
    rounds.push((performance.now() - started) * 1000 / n);
  }
  return median(rounds);
}

const off = await startApp();
const on = await startApp({ PARLEY_METRICS: "1" });
try {
  await on.app.request("/metrics"); // prom-client loaded, the observers in place
  // Alternated, so that the machine's load falls on both alike.
  const offUs: number[] = [];
  const onUs: number[] = [];
  // The app without metrics has no middleware calling the (process-wide) observers.
  for (let i = 0; i < 3; i++) {
    offUs.push(await perRequest(off, "/sw/info"));
    onUs.push(await perRequest(on, "/sw/info"));
  }
  const [a, b] = [median(offUs), median(onUs)];
  console.log(`metrics_request_off_us: ${a.toFixed(1)} µs`);
  console.log(`metrics_request_on_us: ${b.toFixed(1)} µs`);
  console.log(`metrics_request_overhead_us: ${(b - a).toFixed(1)} µs`);
  console.log(`metrics_scrape_ms: ${(await perRequest(on, "/metrics", 20) / 1000).toFixed(2)} ms`);
} finally {
  setObservers(undefined);
  await off.close();
  await on.close();
}
