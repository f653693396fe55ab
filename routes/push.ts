/** Web Push: the server's public key, the browser's subscription, and automatic away. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { jsonBody } from "../http/validate.ts";
import { bodyOf } from "../protocol/contract/mod.ts";
import { currentUser, requireUser, sessionFor } from "../http/session.ts";
import { pushFor } from "../push/mod.ts";
import { PUSH_LIMITS } from "../push/notify.ts";
import { endpointProblem } from "../push/endpoint.ts";
import { log } from "../lib/log.ts";

/** Routes under /api/push. */
export function pushRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;
  const { keys, notifier, away } = pushFor(deps); // made and watching from the start, not at the first request

  bind(app, "getPush", requireUser, async (c) => {
    const user = currentUser(c);
    return c.json({
      public_key: keys.publicKey,
      subscriptions: await store.push.countForUser(user.id),
      auto_away: await store.push.autoAway(user.id),
    });
  });

  bind(app, "subscribePush", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("subscribePush"));
    const user = currentUser(c);
    const problem = await endpointProblem(new URL(body.endpoint), notifier.policy);
    if (problem) throw badRequest(problem, "/body/endpoint");
    const saved = await store.push.saveWithin({
      endpoint: body.endpoint,
      userId: user.id,
      sessionHash: await sessionFor(c, deps),
      p256dh: body.keys.p256dh,
      auth: body.keys.auth,
    }, PUSH_LIMITS.subscriptions);
    if (!saved) {
      throw badRequest(
        `At most ${PUSH_LIMITS.subscriptions} browsers get notifications: sign out an old session.`,
        "/body/endpoint",
      );
    }
    return c.json({}, 201);
  });

  bind(app, "unsubscribePush", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("unsubscribePush"));
    if (!(await store.push.remove(body.endpoint, currentUser(c).id))) {
      throw notFound("No such subscription.");
    }
    return c.json({});
  });

  bind(app, "updatePushSettings", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("updatePushSettings"));
    await store.push.setAutoAway(currentUser(c).id, body.auto_away);
    // Going away or back is sent to the IRC connections after the answer, not before it.
    away.setting(currentUser(c).id, body.auto_away).catch((err) =>
      log.warn("push: applying automatic away failed", {
        uid: currentUser(c).id,
        error: String(err),
      })
    );
    return c.json({ auto_away: body.auto_away });
  });

  return app;
}
