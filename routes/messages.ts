/** conversationMessages and connectionMessages: pages of a conversation's history. */
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams } from "../http/validate.ts";
import { queryLimit, queryTime } from "../http/schemas.ts";
import { ircLower } from "../irc/casefold.ts";
import { CONVERSATION } from "./conversations.ts";
import { DomainError } from "../lib/errors.ts";
import type { HistoryQuery } from "../store/message_types.ts";

/** Longest `match` accepted; longer is a 400, never a slow query. */
export const MAX_MATCH = 500;

/** The query of history listings, shared with search. */
export const matchParam = z.string().max(MAX_MATCH, { error: `At most ${MAX_MATCH} characters.` })
  .optional();

/** The query of conversationMessages and connectionMessages. */
export const historyQuery = z.object({
  before: queryTime,
  after: queryTime,
  around: queryTime,
  limit: queryLimit(60, 200),
  match: matchParam,
});

/** Validates the listing query; `before` later than `after` is refused (cursors, not a window). */
export function readHistoryQuery(c: Context): HistoryQuery & { match?: string } {
  const q = queryParams(c, historyQuery);
  if (q.before !== undefined && q.after !== undefined && q.before > q.after) {
    throw badRequest("before must not be later than after.", "/query/before");
  }
  return q;
}

/** Routes under /api/connection/{connection_id}/.../messages. */
export function messageRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  async function page(c: Context<AppEnv>, conversationId: string) {
    const user = currentUser(c);
    const connection = await store.connections.get(user.id, c.req.param("connection_id") ?? "");
    if (!connection) throw notFound("No such connection.");
    const q = readHistoryQuery(c);
    const conversation = await store.conversations.get(connection.id, ircLower(conversationId));
    if (!conversation) {
      // The server conversation exists only once the server has said something.
      if (conversationId === "") return c.json({ messages: [] });
      throw notFound("No such conversation.");
    }
    const { match, ...page } = q;
    if (match === undefined) return c.json(await store.messages.historyOf(conversation.id, page));
    const { search } = store.messages;
    if (!search) throw new DomainError("unavailable", "Search is not available.", "/query/match");
    return c.json(await search.inConversation(conversation.id, match, page));
  }

  app.get(
    `/connection/:connection_id/conversation/${CONVERSATION}/messages`,
    requireUser,
    (c) => page(c, c.req.param("conversation_id")),
  );
  app.get("/connection/:connection_id/messages", requireUser, (c) => page(c, ""));
  return app;
}
