/** checkForUpdates: the running and the newest available version, as numbers. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { requireUser } from "../http/session.ts";
import { UpdateChecker } from "../updates/check.ts";
import denoJson from "../deno.json" with { type: "json" };

/** Routes under /api/check-for-updates. */
export function updatesRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const checker = new UpdateChecker(deps.config.updateUrl, denoJson.version);
  bind(app, "checkForUpdates", requireUser, async (c) => c.json(await checker.check()));
  return app;
}
