/** Web Push: the server's public key, the browser's subscription, and automatic away. */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { jsonBody } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { pushFor } from "../push/mod.ts";
import { PUSH_LIMITS } from "../push/notify.ts";
import { endpointProblem } from "../push/endpoint.ts";

const b64url = (len: number, what: string) =>
  z.string({ error: `${what} is required.` }).regex(
    new RegExp(`^[\\w-]{${len}}={0,2}$`),
    `${what} must be ${len} base64url characters.`,
  ).transform((s) => s.replace(/=+$/, ""));

// Push services are HTTPS (RFC 8030); the endpoint is the browser's word, so it is bounded.
const endpoint = z.url({ protocol: /^https$/, error: "endpoint must be an https URL." })
  .max(2048, "endpoint is too long.");

/** subscribePush's body. */
export const subscribeBody = z.object({
  endpoint,
  keys: z.object({
    p256dh: b64url(87, "keys.p256dh"),
    auth: b64url(22, "keys.auth"),
  }, { error: "keys is required." }),
});
/** unsubscribePush's body. */
export const unsubscribeBody = z.object({ endpoint });
/** updatePushSettings's body. */
export const settingsBody = z.object({
  auto_away: z.boolean({ error: "auto_away must be true or false." }),
});

/** Routes under /api/push. */
export function pushRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;
  const { keys, notifier } = pushFor(deps); // made and watching from the start, not at the first request

  app.get("/push", requireUser, async (c) => {
    const user = currentUser(c);
    return c.json({
      public_key: keys.publicKey,
      subscriptions: await store.push.countForUser(user.id),
      auto_away: await store.push.autoAway(user.id),
    });
  });

  app.post("/push/subscriptions", requireUser, async (c) => {
    const body = await jsonBody(c, subscribeBody);
    const user = currentUser(c);
    const problem = await endpointProblem(new URL(body.endpoint), notifier.policy);
    if (problem) throw badRequest(problem, "/body/endpoint");
    const saved = await store.push.saveWithin({
      endpoint: body.endpoint,
      userId: user.id,
      sessionHash: c.get("sessionHash")!,
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

  app.delete("/push/subscriptions", requireUser, async (c) => {
    const body = await jsonBody(c, unsubscribeBody);
    if (!(await store.push.remove(body.endpoint, currentUser(c).id))) {
      throw notFound("No such subscription.");
    }
    return c.json({});
  });

  app.post("/push/settings", requireUser, async (c) => {
    const body = await jsonBody(c, settingsBody);
    await store.push.setAutoAway(currentUser(c).id, body.auto_away);
    return c.json({ auto_away: body.auto_away });
  });

  return app;
}
