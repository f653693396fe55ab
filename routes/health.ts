/**
 * Health and readiness for load balancers and supervisors, outside `/api` (they are no Convos
 * operations and need no session): `GET /healthz` says the process answers, `GET /readyz` that it
 * can serve (the store answers, this node holds its place in the cluster, the IRC listener is
 * bound). Neither says anything of users; a failure's reason names only the part.
 */
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { log } from "../lib/log.ts";

/** How long the store may take to answer a readiness probe. */
const STORE_PROBE_MS = 2000;

/** Resolves to a reason the store cannot serve, or undefined when it answered in time. */
async function storeProblem(deps: AppDeps, ms: number): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answered = await Promise.race([
      deps.store.users.count().then(() => true),
      new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms)),
    ]);
    return answered ? undefined : `the store did not answer within ${ms} ms`;
  } catch (err) {
    // The error may name a database host: it goes to the log, not to whoever probes.
    log.warn("readiness: the store failed", { error: err });
    return "the store failed to answer";
  } finally {
    clearTimeout(timer);
  }
}

/** The router for `/healthz` and `/readyz`; `storeProbeMs` bounds the store's answer. */
export function healthRoutes(deps: AppDeps, storeProbeMs = STORE_PROBE_MS): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.header("Cache-Control", "no-store");
    await next();
  });

  app.get("/healthz", (c) => c.json({ status: "ok" }));

  app.get("/readyz", async (c) => {
    const checks: Record<string, string> = {};
    checks.store = (await storeProblem(deps, storeProbeMs)) ?? "ok";
    checks.irc = deps.irc.notReady?.() ?? "ok";
    if (deps.config.ircListen.length) {
      checks.irc_listener = deps.bouncer ? "ok" : "the IRC listener is not bound yet";
    }
    const failed = Object.values(checks).filter((v) => v !== "ok");
    if (!failed.length) return c.json({ status: "ok", checks });
    return c.json({ status: "unavailable", reason: failed.join("; "), checks }, 503);
  });
  return app;
}
