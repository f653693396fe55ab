/** conversationMessages and connectionMessages: pages of a conversation's history. */
import { type Context, Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { queryParams, validate } from "../http/validate.ts";
import { queryLimit } from "../protocol/contract/fields.ts";
import { API } from "../protocol/contract/mod.ts";
import { ircLower } from "../lib/casefold.ts";
import { ignoredMasks, withoutIgnored } from "../irc/chat/ignore.ts";
import { DomainError } from "../lib/errors.ts";
import type { HistoryQuery } from "../store/message_types.ts";
import { withSentences } from "./messages_text.ts";

const pageLimit = (fallback: number) => queryLimit(fallback, 200);

/** The widest window `after` and `before` may span together, as Convos allows. */
const MAX_WINDOW_US = 86_400 * 365 * 1_000_000;

/**
 * Validates the listing query. With both `after` and `before` it is a window, as in Convos: the
 * messages between them (`limit` 200 by default), `after` no later than `before`, at most a year.
 */
function readHistoryQuery(c: Context): HistoryQuery & { match?: string } {
  const { limit, ...q } = queryParams(c, API.conversationMessages.query);
  const window = q.before !== undefined && q.after !== undefined;
  const n = validate(pageLimit(window ? 200 : 60), limit, "/query/limit");
  if (window && q.after! > q.before!) {
    throw badRequest('Must be before "/after".', "/query/before");
  }
  if (window && q.before! - q.after! > MAX_WINDOW_US) {
    throw badRequest('Must be less than "/after" - 12 months.', "/query/before");
  }
  return { ...q, limit: n };
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
    // What people said before the user ignored them is hidden too.
    const masks = await ignoredMasks(store, user.id);
    if (match === undefined) {
      const got = await store.messages.historyOf(conversation.id, page);
      return c.json(withSentences(withoutIgnored(got, masks)));
    }
    const { search } = store.messages;
    if (!search) throw new DomainError("unavailable", "Search is not available.", "/query/match");
    const got = await search.inConversation(conversation.id, match, page);
    return c.json(withSentences(withoutIgnored(got, masks)));
  }

  bind(app, "conversationMessages", requireUser, (c) => page(c, c.req.param("conversation_id")));
  bind(app, "connectionMessages", requireUser, (c) => page(c, ""));
  return app;
}
