/** searchMessages: word search over all of the user's conversations. */
import { Hono } from "hono";
import { DomainError } from "../lib/errors.ts";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { queryLimit, queryTime } from "../http/schemas.ts";
import { ircLower } from "../irc/casefold.ts";
import { matchParam } from "./messages.ts";

/** searchMessages's query. */
export const searchQuery = z.object({
  match: matchParam,
  connection_id: z.string().max(100).optional(),
  conversation_id: z.string().max(200).optional(),
  from: z.string().max(100).optional(),
  before: queryTime,
  after: queryTime,
  limit: queryLimit(60, 200),
});

/** Routes under /api/search. */
export function searchRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/search", requireUser, async (c) => {
    const q = queryParams(c, searchQuery);
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
