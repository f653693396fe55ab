/** Conversations: list, mark as read, and send a message into one (for scripts). */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { notFound } from "../http/errors.ts";
import { jsonBody, validate } from "../http/validate.ts";
import { API, bodyOf } from "../protocol/contract/mod.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { isListed } from "../irc/chat/record.ts";
import { NOT_CONNECTED } from "../irc/chat/frozen.ts";
import { conversationJson } from "../irc/resources.ts";
import { ircLower } from "../lib/casefold.ts";
import { formatMicros } from "../protocol/time.ts";
import type { ConversationRecord } from "../store/conversations.ts";

/** getConversations: the user's listed conversations, by conversation_id (as Convos). */
export async function listConversations(deps: AppDeps, userId: number) {
  const { store } = deps;
  await store.messages.flush(); // the notification counts include what was just received
  const all = await store.conversations.listForUser(userId);
  const connections = await store.connections.list(userId);
  const rowOf = new Map(connections.map((r) => [r.connectionId, r.id]));
  const states = await deps.irc.states(userId);
  // The server's own conversation ("") is reached through connectionMessages, not listed.
  return all.filter(isListed).map((conv) =>
    conversationJson(
      conv,
      states.get(rowOf.get(conv.connectionId) ?? 0) === "connected" ? "" : NOT_CONNECTED,
    )
  );
}

/** Routes under /api/conversations and /api/connection/{id}/conversation/{id}. */
export function conversationRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  async function connectionOf(userId: number, connectionId: string) {
    const record = await store.connections.get(userId, connectionId);
    if (!record) throw notFound("No such connection.");
    return record;
  }

  bind(app, "listConversations", requireUser, async (c) => {
    return c.json({ conversations: await listConversations(deps, currentUser(c).id) });
  });

  bind(app, "markConnectionAsRead", requireUser, async (c) => {
    const record = await connectionOf(currentUser(c).id, c.req.param("connection_id"));
    await store.conversations.markConnectionRead(record.id);
    deps.bus.publish(record.userId, {
      event: "unread",
      connection_id: record.connectionId,
      conversation_id: null,
      unread: 0,
    });
    for (const conv of await store.conversations.listForConnection(record.id)) {
      if (conv.conversationId) publishRead(deps, record.userId, record.connectionId, conv);
    }
    return c.json({});
  });

  bind(app, "markConversationAsRead", requireUser, async (c) => {
    const record = await connectionOf(currentUser(c).id, c.req.param("connection_id"));
    const id = ircLower(c.req.param("conversation_id"));
    const conv = await store.conversations.get(record.id, id);
    if (!conv) throw notFound("No such conversation.");
    await store.conversations.markRead(conv.id);
    deps.bus.publish(record.userId, {
      event: "unread",
      connection_id: record.connectionId,
      conversation_id: conv.conversationId,
      unread: 0,
    });
    const read = await store.conversations.get(record.id, id);
    if (read?.conversationId) publishRead(deps, record.userId, record.connectionId, read);
    return c.json({});
  });

  bind(app, "sendMessage", requireUser, async (c) => {
    // The id becomes part of IRC lines: a space or a control character would inject.
    const { conversation_id } = validate(API.sendMessage.params, c.req.param(), "/params");
    const body = await jsonBody(c, bodyOf("sendMessage"));
    const user = currentUser(c);
    const result = await deps.irc.send(
      user.id,
      c.req.param("connection_id"),
      conversation_id,
      body.message,
    );
    return c.json({ message: "Sent.", ...result });
  });

  return app;
}

/** Tells attached IRC clients (and other tabs) where a conversation is read up to now. */
function publishRead(
  deps: AppDeps,
  userId: number,
  connectionId: string,
  conv: ConversationRecord,
) {
  deps.bus.publish(userId, {
    event: "read",
    connection_id: connectionId,
    conversation_id: conv.conversationId,
    ts: formatMicros(conv.lastRead),
  });
}
