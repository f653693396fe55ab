/** The user's own account: register, log in and out, read, update, delete, invite. */
import { type Context, Hono } from "hono";
import { bind } from "../http/bind.ts";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, badRequest, forbidden, notFound } from "../http/errors.ts";
import { jsonBody, queryParams, validate } from "../http/validate.ts";
import { API, bodyOf } from "../protocol/contract/mod.ts";
import {
  afterLogout,
  csrfToken,
  currentUser,
  endSession,
  requireAdmin,
  requireUser,
  startSession,
  SUSPENDED,
  wallNow,
} from "../http/session.ts";
import { clientAddress } from "../http/client.ts";
import { confirmPassword } from "../http/confirm_password.ts";
import { hashPassword, verifyPassword } from "../lib/password.ts";
import { safeEqual } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import type { UserRecord } from "../store/users.ts";
import { createInvite, inviteToken } from "./invite.ts";
import { userJson } from "./user_json.ts";
import { addDefaultConnection, settleDefaultConnection } from "../irc/default_connection.ts";
import { passwordGeneration } from "../bouncer/credentials.ts";
import { setSuspended } from "../auth/suspension.ts";
import { endSessions } from "../auth/sessions.ts";
import { deleteAccount } from "../auth/deletion.ts";
import { checkDeletable, checkRoles } from "../store/user_rules.ts";

const NOT_OPEN = "Convos registration is not open to public.";
const BAD_INVITE = "Invalid token. You have to ask your Convos admin for a new link.";
/** Routes under /api/user. */
export function userRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { store } = deps;

  async function withCsrf(
    c: { get(k: "sessionHash"): string | undefined },
    body: Record<string, unknown>,
  ) {
    const hash = c.get("sessionHash");
    return hash ? { ...body, csrf: await csrfToken(deps, hash) } : body;
  }

  /** The target of /user/{email}: the caller, or anyone for an admin. */
  async function target(
    caller: UserRecord,
    rawEmail: string,
    action: "update" | "delete",
  ): Promise<UserRecord> {
    // Hono's param() has decoded it already; decoding twice would turn %2540 into @.
    const address = validate(API.updateUser.params.shape.email, rawEmail, "/params/email");
    if (address !== caller.email && !caller.roles.includes("admin")) {
      throw forbidden(`Only admins can ${action} other users.`);
    }
    const user = address === caller.email ? caller : await store.users.byEmail(address);
    if (!user) throw notFound("No such user.");
    return user;
  }

  /** A new password ends the IRC sessions that logged in with another one, on every node. */
  async function passwordChanged(user: UserRecord): Promise<void> {
    const generation = await passwordGeneration(user.passwordHash);
    await deps.revocations?.revoke({ userId: user.id, kind: "password", generation });
  }

  /** What only the caller sees of their own account. */
  const own = (c: Context<AppEnv>) => ({ remoteAddress: clientAddress(c, deps.config) });

  bind(app, "loginUser", async (c) => {
    const body = await jsonBody(c, bodyOf("loginUser"), { required: true });
    const addr = clientAddress(c, deps.config);
    // Read here, not when the routes are built, so that a test may give the app another one.
    const attempt = deps.loginThrottle.begin(body.email, addr);
    if ("wait" in attempt) {
      const seconds = Math.ceil(attempt.wait / 1000);
      c.header("Retry-After", String(seconds));
      const wait = seconds === 1 ? "1 second" : `${seconds} seconds`;
      throw new ApiError(429, `Too many failed logins. Try again in ${wait}.`);
    }
    // The directory's word first, where there is one; else, or when it says no, the account's own.
    const vouched = await deps.directory?.login(body.email, body.password);
    const user = vouched ?? await store.users.byEmail(body.email);
    const ok = vouched !== undefined || await verifyPassword(user?.passwordHash, body.password);
    if (!ok || !user) {
      attempt.fail();
      log.info("login failed", { email: body.email, addr });
      throw badRequest("Invalid email or password.");
    }
    attempt.succeed();
    await startSession(c, deps, user, wallNow(deps));
    await settleDefaultConnection(deps, user);
    return c.json(await withCsrf(c, await userJson(deps, user, own(c))));
  });

  bind(app, "registerUser", async (c) => {
    const body = await jsonBody(c, bodyOf("registerUser"), { required: true });
    const existing = await store.users.byEmail(body.email);
    let user: UserRecord;
    let created = false;
    if (body.token !== undefined) {
      // Convos's one answer for a missing or bad expiry, an expired link and a wrong token.
      const exp = Number(body.exp);
      if (!body.exp || !Number.isInteger(exp) || exp * 1000 < Date.now()) {
        throw new ApiError(401, BAD_INVITE);
      }
      const expected = await inviteToken(deps, body.email, body.exp, existing?.passwordHash ?? "");
      if (!safeEqual(body.token, expected)) throw new ApiError(401, BAD_INVITE);
      // A reset link made before the suspension does not open the account.
      if (existing?.suspended) throw forbidden(SUSPENDED);
      const hash = await hashPassword(body.password);
      if (existing) {
        // An invite for an existing user is a password reset; it ends every old session.
        await endSessions(deps, existing.id);
        user = (await store.users.update(existing.id, { passwordHash: hash }))!;
        await passwordChanged(user);
      } else {
        try {
          user = await store.users.create(body.email, hash, []);
        } catch (err) {
          // The same link sent twice at once: the first made the account, and the link is used.
          if (await store.users.byEmail(body.email)) throw new ApiError(401, BAD_INVITE);
          throw err;
        }
        created = true;
      }
    } else {
      const open = (await store.settings.current()).open_to_public;
      // Refused before the costly hash when it surely will be; register() decides for certain.
      if (!open && await store.users.hasPeople()) throw new ApiError(401, NOT_OPEN);
      const result = await store.users.register(
        body.email,
        await hashPassword(body.password),
        open,
      );
      if ("refused" in result) {
        throw result.refused === "taken"
          ? badRequest("That email is already registered.", "/body/email")
          : new ApiError(401, NOT_OPEN);
      }
      user = result.user;
      created = true;
    }
    log.info("user registered", { uid: user.id });
    // An invite link's session was opened by the link, not by a password the user gave.
    await startSession(c, deps, user, body.token === undefined ? wallNow(deps) : 0);
    if (created) await addDefaultConnection(deps, user);
    return c.json(await withCsrf(c, await userJson(deps, user, own(c))));
  });

  const logout = async (c: Context<AppEnv>) => {
    const { csrf } = queryParams(c, API.logoutUser.query);
    const hash = c.get("sessionHash");
    if (hash && !safeEqual(csrf, await csrfToken(deps, hash))) {
      throw badRequest("Invalid csrf token.", "/query/csrf");
    }
    await endSession(c, deps);
    return c.redirect(afterLogout(deps.config), 302);
  };
  bind(app, "logoutUser", requireUser, logout);

  bind(app, "getUser", requireUser, async (c) => {
    const query = queryParams(c, API.getUser.query);
    return c.json(await withCsrf(c, await userJson(deps, currentUser(c), { ...query, ...own(c) })));
  });

  bind(app, "updateUser", requireUser, async (c) => {
    const caller = currentUser(c);
    const user = await target(caller, c.req.param("email"), "update");
    const body = await jsonBody(c, bodyOf("updateUser"));
    // As Convos: roles from a non-admin are ignored, not refused.
    const roles = caller.roles.includes("admin") ? body.roles : undefined;
    if (body.suspended !== undefined && !caller.roles.includes("admin")) {
      throw forbidden("Only an admin may suspend an account.");
    }
    if (roles !== undefined) await checkRoles(store.users, user, roles, "/body/roles");
    // One's own new password needs the current one, unless this session was opened with it
    // within RECENT_PASSWORD_MS (Convos's client never sends it). An admin setting someone else's
    // does not (they cannot know it), as Convos lets them; the invite link is the way that leaves
    // the admin not knowing the new one either.
    // An empty field (the form's, left blank) is the same as none.
    const current = body.current_password || undefined;
    const ownPassword = body.password !== undefined && user.id === caller.id;
    const givenAt = ownPassword
      ? await confirmPassword(c, deps, user, current, "set a new one")
      : 0;
    if (
      !ownPassword && current !== undefined && !(await verifyPassword(user.passwordHash, current))
    ) {
      throw badRequest("The current password is wrong.", "/body/current_password");
    }
    // Before the other changes: a suspension the rules refuse changes nothing.
    if (body.suspended !== undefined) {
      await setSuspended(deps, user, body.suspended, caller, "/body/suspended");
    }
    const updated = await store.users.update(user.id, {
      roles: roles ? [...new Set(roles)] : undefined,
      highlightKeywords: body.highlight_keywords,
      passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
    });
    if (!updated) throw notFound("No such user.");
    if (body.password !== undefined) {
      await endSessions(deps, user.id);
      await passwordChanged(updated);
      // The new session is as fresh as the password last given: now, when it came with this.
      if (ownPassword) await startSession(c, deps, updated, givenAt);
    }
    return c.json(await userJson(deps, updated, user.id === caller.id ? own(c) : {}));
  });

  bind(app, "deleteUser", requireUser, async (c) => {
    const caller = currentUser(c);
    const user = await target(caller, c.req.param("email"), "delete");
    await checkDeletable(store.users, user, "/params/email");
    await deleteAccount(deps, user, caller);
    return c.json({ message: "Deleted." });
  });

  const invite = async (c: Context<AppEnv>) => {
    const address = validate(
      API.inviteUser.params.shape.email,
      c.req.param("email") ?? "",
      "/params/email",
    );
    return c.json(await createInvite(deps, address));
  };
  bind(app, "inviteUser", requireAdmin, invite);

  return app;
}
