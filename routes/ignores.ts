/** The user's ignore list: listed, added to and removed from (the settings page's list). */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { jsonBody } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { ignore, unignore } from "../irc/chat/ignore.ts";
import { bodyOf } from "../protocol/contract/mod.ts";

/** Routes under /api/ignores. */
export function ignoreRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  bind(app, "listIgnores", requireUser, async (c) => {
    return c.json({ ignores: await store.ignores.list(currentUser(c).id) });
  });

  bind(app, "addIgnore", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("addIgnore"));
    const user = currentUser(c);
    const { mask } = await ignore(store, user.id, body.mask, "/body/mask");
    return c.json({ mask, ignores: await store.ignores.list(user.id) }, 201);
  });

  bind(app, "removeIgnore", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("removeIgnore"));
    const user = currentUser(c);
    const gone = await unignore(store, user.id, body.mask, "/body/mask");
    return c.json({ mask: gone, ignores: await store.ignores.list(user.id) });
  });

  return app;
}
