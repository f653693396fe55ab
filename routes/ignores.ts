/** The user's ignore list: listed, added to and removed from (the settings page's list). */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { jsonBody } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { ignore, unignore } from "../irc/chat/ignore.ts";
import { MAX_MASK_LENGTH } from "../irc/mask.ts";

const mask = z.string({ error: "mask is required." }).min(1, "mask is required.")
  .max(MAX_MASK_LENGTH, `At most ${MAX_MASK_LENGTH} characters.`);

/** addIgnore's and removeIgnore's body: a nick or a mask, as typed after /ignore. */
export const ignoreBody = z.object({ mask });

/** Routes under /api/ignores. */
export function ignoreRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  app.get("/ignores", requireUser, async (c) => {
    return c.json({ ignores: await store.ignores.list(currentUser(c).id) });
  });

  app.post("/ignores", requireUser, async (c) => {
    const body = await jsonBody(c, ignoreBody);
    const user = currentUser(c);
    const { mask } = await ignore(store, user.id, body.mask, "/body/mask");
    return c.json({ mask, ignores: await store.ignores.list(user.id) }, 201);
  });

  app.delete("/ignores", requireUser, async (c) => {
    const body = await jsonBody(c, ignoreBody);
    const user = currentUser(c);
    const gone = await unignore(store, user.id, body.mask, "/body/mask");
    return c.json({ mask: gone, ignores: await store.ignores.list(user.id) });
  });

  return app;
}
