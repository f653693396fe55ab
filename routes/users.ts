/** The admin's user list, paged by email. */
import { Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { adminOnly } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { queryLimit } from "../http/schemas.ts";
import { userJson } from "./user_json.ts";

/** getUsers's query. */
export const listQuery = z.object({
  after: z.string().max(320).optional(),
  limit: queryLimit(100, 500),
});

/** Routes under /api/users. */
export function usersRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/users", adminOnly("Only admins can list users."), async (c) => {
    const { after, limit } = queryParams(c, listQuery);
    const rows = await deps.store.users.list(after?.toLowerCase(), limit + 1);
    const page = rows.slice(0, limit);
    const users = await Promise.all(page.map((u) => userJson(deps, u)));
    return c.json(rows.length > limit ? { users, after: page[page.length - 1].email } : { users });
  });
  return app;
}
