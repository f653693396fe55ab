/** The admin's user list, paged by email. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { adminOnly } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { API } from "../protocol/contract/mod.ts";
import { userJson } from "./user_json.ts";

/** Routes under /api/users. */
export function usersRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bind(app, "getUsers", adminOnly("Only admins can list users."), async (c) => {
    const { after, limit } = queryParams(c, API.getUsers.query);
    const rows = await deps.store.users.list(after?.toLowerCase(), limit + 1);
    const page = rows.slice(0, limit);
    const users = await Promise.all(page.map((u) => userJson(deps, u)));
    return c.json(rows.length > limit ? { users, after: page[page.length - 1].email } : { users });
  });
  return app;
}
