/**
 * A conversation's notification level, draft and detachment from IRC clients (the user's own, kept
 * on the server).
 */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { notFound } from "../http/errors.ts";
import { jsonBody } from "../http/validate.ts";
import { bodyOf } from "../protocol/contract/mod.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { ircLower, isChannel } from "../lib/casefold.ts";
import { type NotifyLevel } from "../protocol/limits.ts";
import { notifyLevel } from "../store/conversations.ts";
import { changeDetach } from "../bouncer/detached.ts";
import { parseIrcUrl } from "../irc/url.ts";

/** Routes under /api/connection/{id}/conversation/{id}/notify and .../draft. */
export function conversationPrefsRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  /**
   * The conversation of the request's path, if any: 404 when the connection is not the user's.
   * The server conversation ("") is every connection's, made on its first connect; one never
   * connected yet has it made here (its draft, typed before the first connect, is kept).
   */
  async function conversationIfAny(c: Context<AppEnv>) {
    const record = await store.connections.get(currentUser(c).id, c.req.param("connection_id")!);
    if (!record) throw notFound("No such connection.");
    const id = ircLower(c.req.param("conversation_id") ?? "");
    const conv = await store.conversations.get(record.id, id);
    if (conv || id !== "") return conv;
    let host = record.connectionId;
    try {
      host = parseIrcUrl(record.url).host;
    } catch { /* why: a stored URL no longer valid names no host; the connection's id will do */ }
    return await store.conversations.ensure(record.id, "", host);
  }

  async function conversationOf(c: Context<AppEnv>) {
    const conv = await conversationIfAny(c);
    if (!conv) throw notFound("No such conversation.");
    return conv;
  }

  bind(app, "setConversationNotify", requireUser, async (c) => {
    const { notify } = await jsonBody(c, bodyOf("setConversationNotify"));
    const conv = await conversationOf(c);
    // The default is stored as "", so that a channel follows the default if it ever changes.
    const channel = isChannel(conv.conversationId);
    const level = notify as NotifyLevel;
    await store.conversations.setNotify(conv.id, level === notifyLevel("", channel) ? "" : level);
    return c.json({ notify: level });
  });

  bind(app, "setConversationDetached", requireUser, async (c) => {
    const { detached } = await jsonBody(c, bodyOf("setConversationDetached"));
    const conv = await conversationOf(c);
    if (!isChannel(conv.conversationId)) throw notFound("No such channel.");
    const state = await changeDetach(
      store,
      currentUser(c).id,
      conv.connectionId,
      conv.name,
      { detached },
      deps.bus,
    );
    return c.json({ detached: state.detached });
  });

  bind(app, "getConversationDraft", requireUser, async (c) => {
    const conv = await conversationOf(c);
    return c.json({ draft: await store.conversations.draft(conv.id) });
  });

  bind(app, "saveConversationDraft", requireUser, async (c) => {
    const { draft } = await jsonBody(c, bodyOf("saveConversationDraft"));
    // A conversation closed while its draft's clearing was on the way (its line was `/close`)
    // has no draft left to clear: done, not an error.
    const conv = draft === "" ? await conversationIfAny(c) : await conversationOf(c);
    if (conv) await store.conversations.setDraft(conv.id, draft);
    return c.json({ draft });
  });

  return app;
}
