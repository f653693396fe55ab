/**
 * App tokens on the account page: make one (shown once), list them, revoke one. A token is a
 * password for one IRC client of the bouncer listener (bouncer/auth.ts checks it); revoking it ends
 * the clients logged in with it.
 */
import { Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { jsonBody, validate } from "../http/validate.ts";
import { currentUser, requireUser } from "../http/session.ts";
import { confirmPassword } from "../http/confirm_password.ts";
import { API, bodyOf } from "../protocol/contract/mod.ts";
import { newAppToken } from "../lib/app_token.ts";
import { type AppTokenRecord, MAX_APP_TOKENS } from "../store/app_tokens.ts";

const iso = (ms: number) => new Date(ms).toISOString();

function tokenJson(t: AppTokenRecord) {
  return {
    id: String(t.id),
    name: t.name,
    created: iso(t.created),
    ...(t.lastUsed ? { last_used: iso(t.lastUsed) } : {}),
  };
}

/** Routes under /api: /tokens. */
export function appTokenRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  bind(app, "listAppTokens", requireUser, async (c) => {
    const tokens = await store.appTokens.list(currentUser(c).id);
    return c.json({ tokens: tokens.map(tokenJson) });
  });

  bind(app, "createAppToken", requireUser, async (c) => {
    const body = await jsonBody(c, bodyOf("createAppToken"), { required: true });
    await confirmPassword(c, deps, currentUser(c), body.current_password, "make an app token");
    const { token, hash } = await newAppToken();
    const made = await store.appTokens.create(currentUser(c).id, body.name, hash);
    if (!made) {
      throw badRequest(
        `At most ${MAX_APP_TOKENS} app tokens: revoke one no longer used.`,
        "/body/name",
      );
    }
    return c.json({ ...tokenJson(made), token }, 201);
  });

  bind(app, "removeAppToken", requireUser, async (c) => {
    const id = validate(API.removeAppToken.params.shape.id, c.req.param("id"), "/params/id");
    // Another user's id is "no such token" too.
    const userId = currentUser(c).id;
    if (!(await store.appTokens.remove(userId, Number(id)))) {
      throw notFound("No such token.");
    }
    // The IRC clients logged in with it end now, on every node.
    await deps.revocations?.revoke({ userId, kind: "token", id: Number(id) });
    return c.json({});
  });

  return app;
}
