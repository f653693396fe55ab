/**
 * `GET /metrics` for Prometheus, mounted only with PARLEY_METRICS=1 (else the path is unknown:
 * 404), and the middleware that times every request by its route pattern. prom-client is loaded
 * when this is mounted, never in a daemon without metrics.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { lazy } from "../lib/lazy.ts";
import { log } from "../lib/log.ts";
import { observe } from "../lib/metrics.ts";
import { ConfigError } from "../config.ts";

const loadPrometheus = lazy(() => import("../metrics/prometheus.ts"));

/**
 * The route pattern that answered (`/api/connection/:connection_id`), never the path itself,
 * which holds ids, nicks and channel names; `unmatched` when no route did (middleware answered,
 * or nothing: 404). Read after `next()`, when `routeIndex` is the handler that responded.
 */
function operationOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  const route = matchedRoutes(c)[c.req.routeIndex];
  // Middleware is registered for every method (ALL); a route for its own.
  if (!route || route.method === "ALL") return "unmatched";
  return route.path.replace(/\{[^}]*\}/g, "");
}

/** Times each request and counts it by route pattern, method and status. */
export function requestMetrics(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    observe.httpRequest(
      operationOf(c),
      c.req.method,
      c.res.status,
      (performance.now() - started) / 1000,
    );
  };
}

/**
 * Serves `/metrics` alone on `url` (PARLEY_METRICS=http://HOST:PORT), an address only the
 * monitoring network need reach; anything else there is 404. An address that cannot be bound is
 * a configuration error naming the variable.
 */
export function serveMetrics(url: URL, deps: AppDeps): Deno.HttpServer<Deno.NetAddr> {
  const app = new Hono<AppEnv>().route("/", metricsRoutes(deps));
  const port = Number(url.port || 80); // the URL parser leaves http's own port out
  const where = `${url.hostname}:${port}`;
  try {
    return Deno.serve({
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port,
      onListen: ({ hostname, port }) =>
        log.info("metrics listening", { url: `http://${hostname}:${port}/metrics` }),
    }, (req) => app.fetch(req));
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      throw new ConfigError(`PARLEY_METRICS: ${where} is already in use by another program`);
    }
    if (err instanceof Deno.errors.AddrNotAvailable) {
      throw new ConfigError(`PARLEY_METRICS: ${url.hostname} is not an address of this machine`);
    }
    if (err instanceof Deno.errors.PermissionDenied) {
      throw new ConfigError(`PARLEY_METRICS: no permission to listen on ${where}`);
    }
    throw err;
  }
}

/** The router for `/metrics`. */
export function metricsRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Loaded now, so that the histograms see requests and commits from the start.
  const registry = loadPrometheus().then((m) => m.prometheus(deps));
  registry.catch((err) => log.error("metrics not available", { error: err }));
  app.get("/metrics", async (c) => {
    const prometheus = await registry;
    c.header("Cache-Control", "no-store");
    c.header("Content-Type", prometheus.contentType);
    return c.body(await prometheus.text());
  });
  return app;
}
