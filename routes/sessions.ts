/**
 * The user's sessions on the account page (list, sign out one), the client each was last used
 * from, and the install hint the client needs before anyone can log in.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { bind } from "../http/bind.ts";
import { LRUCache } from "lru-cache";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { notFound } from "../http/errors.ts";
import { validate } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { SESSIONS_ENDED } from "../protocol/events.ts";
import { clientAddress } from "../http/client.ts";
import { API } from "../protocol/contract/mod.ts";

/**
 * Records the user agent and address a session is used from, written only when they change
 * (a small least-recently-used cache per process spares the database a write per request).
 */
export function noteSessionClient(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const seen = new LRUCache<string, string>({ max: 10_000 });
  return async (c, next) => {
    const note = async (hash: string | undefined) => {
      if (!hash) return;
      const ua = (c.req.header("user-agent") ?? "").slice(0, 300);
      const addr = clientAddress(c, deps.config);
      const key = `${ua}\n${addr}`;
      if (seen.get(hash) === key) return;
      seen.set(hash, key);
      await deps.store.sessions.noteClient(hash, ua, addr);
    };
    const before = c.get("sessionHash");
    await note(before);
    await next();
    // A login has its new session only now (a logout none).
    const after = c.get("sessionHash");
    if (after !== before) await note(after);
  };
}

/** Routes under /api: /user/sessions and /install. */
export function sessionRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  bind(app, "listSessions", requireUser, async (c) => {
    const current = c.get("sessionHash");
    const sessions = await store.sessions.listForUser(currentUser(c).id, Date.now());
    return c.json({
      sessions: sessions.map((s) => ({
        id: s.publicId,
        created: iso(s.created),
        last_used: iso(s.lastUsed || s.created),
        expires: iso(s.expires),
        user_agent: s.userAgent,
        address: s.address,
        current: s.idHash === current,
      })),
    });
  });

  bind(app, "removeSession", requireUser, async (c) => {
    const id = validate(API.removeSession.params.shape.id, c.req.param("id"), "/params/id");
    // Another user's id is "no such session" too: ids of others are not confirmed.
    const userId = currentUser(c).id;
    if (!(await store.sessions.removePublic(userId, id))) {
      throw notFound("No such session.");
    }
    deps.bus.publish(userId, SESSIONS_ENDED);
    return c.json({});
  });

  // Only whether the install is fresh: the client opens on registration then.
  bind(app, "getInstall", async (c) => c.json({ first_user: !(await store.users.hasPeople()) }));

  return app;
}
