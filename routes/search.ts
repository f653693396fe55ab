/** searchMessages: word search over all of the user's conversations. */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import { DomainError } from "../lib/errors.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { API } from "../protocol/contract/mod.ts";
import { ircLower } from "../lib/casefold.ts";

/** Routes under /api/search. */
export function searchRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  bind(app, "searchMessages", requireUser, async (c) => {
    const q = queryParams(c, API.searchMessages.query);
    const { search } = deps.store.messages;
    if (!search) throw new DomainError("unavailable", "Search is not available.");
    const page = await search.forUser(currentUser(c).id, {
      match: q.match,
      connectionId: q.connection_id,
      conversationId: q.conversation_id === undefined ? undefined : ircLower(q.conversation_id),
      from: q.from,
      before: q.before,
      after: q.after,
      limit: q.limit,
    });
    return c.json(page);
  });
  return app;
}
