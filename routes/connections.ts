/** Connections: list, create, update (URL, wanted state, on-connect commands), remove. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { jsonBody } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { bodyOf } from "../protocol/contract/mod.ts";

/** Routes under /api/connections and /api/connection/{connection_id}. */
export function connectionRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  bind(app, "listConnections", requireUser, async (c) => {
    return c.json({ connections: await deps.connections.list(currentUser(c).id) });
  });

  bind(app, "createConnection", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("createConnection"));
    return c.json(await deps.connections.create(currentUser(c), body, "/body"));
  });

  bind(app, "updateConnection", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("updateConnection"));
    const id = c.req.param("connection_id");
    return c.json(await deps.connections.update(currentUser(c).id, id, body, "/body"));
  });

  bind(app, "removeConnection", requireUser, async (c) => {
    await deps.connections.remove(currentUser(c).id, c.req.param("connection_id"));
    return c.json({ message: "Deleted." });
  });

  return app;
}
