/** The web client's settings of the user: read, and changed with every open device told. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { jsonBody } from "../http/validate.ts";
import { bodyOf } from "../protocol/contract/mod.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { readClientSettings, savedClientSettings } from "../store/client_settings.ts";

/** Routes under /api/client-settings. */
export function clientSettingsRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { users } = deps.store;

  bind(app, "getClientSettings", requireUser, async (c) => {
    return c.json(readClientSettings(await users.clientSettings(currentUser(c).id)));
  });

  bind(app, "saveClientSettings", requireUser, async (c) => {
    const change = await jsonBody(c, bodyOf("saveClientSettings"));
    const user = currentUser(c);
    const settings = readClientSettings(
      await users.changeClientSettings(user.id, (json) => savedClientSettings(json, change)),
    );
    deps.bus.publish(user.id, { event: "client_settings", settings });
    return c.json(settings);
  });

  return app;
}
