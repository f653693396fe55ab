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

const loadPrometheus = lazy(() => import("../metrics/prometheus.ts"));

/**
 * The route pattern that answered (`/api/connection/:connection_id`), never the path itself,
 * which holds ids, nicks and channel names; `unmatched` when no route did.
 */
function operationOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    // Middleware is registered for every method; a route for its own.
    if (routes[i].method !== "ALL") return routes[i].path.replace(/\{[^}]*\}/g, "");
  }
  return "unmatched";
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
