/** notificationMessages and markNotificationsAsRead. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { API } from "../protocol/contract/mod.ts";

/** Routes under /api/notifications. */
export function notificationRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { messages } = deps.store;

  bind(app, "notificationMessages", requireUser, async (c) => {
    const q = queryParams(c, API.notificationMessages.query);
    const page = messages.notifications?.list(currentUser(c).id, q.limit, q.before);
    return c.json(await page ?? { messages: [], end: true });
  });

  bind(app, "markNotificationsAsRead", requireUser, async (c) => {
    const user = currentUser(c);
    await messages.notifications?.markRead(user.id);
    // Every other tab and device of the user clears its notification badge now.
    deps.bus.publish(user.id, { event: "notifications", unread: 0 });
    return c.json({});
  });
  return app;
}
