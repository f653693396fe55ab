/** The user's own account: register, log in and out, read, update, delete, invite. */
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppDeps, AppEnv } from "../http/env.ts";
import { ApiError, badRequest, forbidden, notFound } from "../http/errors.ts";
import { jsonBody, queryParams, validate } from "../http/validate.ts";
import { email, password, queryBool } from "../http/schemas.ts";
import {
  csrfToken,
  currentUser,
  endSession,
  requireAdmin,
  requireUser,
  startSession,
} from "../http/session.ts";
import { clientAddress } from "../http/client.ts";
import { LoginThrottle } from "../http/throttle.ts";
import { hashPassword, verifyPassword } from "../lib/password.ts";
import { safeEqual } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import type { UserRecord } from "../store/users.ts";
import { createInvite, inviteToken } from "./invite.ts";
import { userJson } from "./user_json.ts";

const ROLES = ["admin", "bot"] as const;

const loginBody = z.object({ email, password: z.string({ error: "Password is required." }) });
const registerBody = z.object({
  email,
  password,
  exp: z.union([z.string(), z.number()]).optional().transform((
    v,
  ) => (v === undefined ? undefined : String(v))),
  token: z.string().optional(),
});
const updateBody = z.object({
  highlight_keywords: z.array(z.string().trim().min(1).max(100)).max(100).optional(),
  password: password.optional(),
  roles: z.array(z.enum(ROLES, { error: "Unknown role." })).optional(),
});
const getUserQuery = z.object({ connections: queryBool, conversations: queryBool });

/** Routes under /api/user. */
export function userRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const throttle = new LoginThrottle();
  const { store } = deps;

  async function withCsrf(
    c: { get(k: "sessionHash"): string | undefined },
    body: Record<string, unknown>,
  ) {
    const hash = c.get("sessionHash");
    return hash ? { ...body, csrf: await csrfToken(deps, hash) } : body;
  }

  /** The target of /user/{email}: the caller, or anyone for an admin. */
  async function target(caller: UserRecord, rawEmail: string): Promise<UserRecord> {
    // Hono's param() has decoded it already; decoding twice would turn %2540 into @.
    const address = validate(email, rawEmail, "/params/email");
    if (address !== caller.email && !caller.roles.includes("admin")) {
      throw forbidden("You may only change your own account.");
    }
    const user = address === caller.email ? caller : await store.users.byEmail(address);
    if (!user) throw notFound("No such user.");
    return user;
  }

  async function isLastAdmin(user: UserRecord): Promise<boolean> {
    if (!user.roles.includes("admin")) return false;
    return (await store.users.withRole("admin")).length === 1;
  }

  app.post("/user/login", async (c) => {
    const body = await jsonBody(c, loginBody);
    const addr = clientAddress(c, deps.config);
    const wait = throttle.wait(body.email, addr);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      c.header("Retry-After", String(seconds));
      throw new ApiError(429, `Too many failed logins. Try again in ${seconds} seconds.`);
    }
    const user = await store.users.byEmail(body.email);
    if (!(await verifyPassword(user?.passwordHash, body.password)) || !user) {
      throttle.fail(body.email, addr);
      log.info("login failed", { email: body.email, addr });
      throw badRequest("Invalid email or password.");
    }
    throttle.succeed(body.email, addr);
    await startSession(c, deps, user);
    return c.json(await withCsrf(c, await userJson(deps, user)));
  });

  app.post("/user/register", async (c) => {
    const body = await jsonBody(c, registerBody);
    const existing = await store.users.byEmail(body.email);
    let user: UserRecord;
    if (body.token !== undefined || body.exp !== undefined) {
      const exp = Number(body.exp);
      if (!body.exp || !Number.isInteger(exp)) {
        throw badRequest("The invite has no valid expiry.", "/body/exp");
      }
      if (exp * 1000 < Date.now()) {
        throw badRequest("The invite has expired. Ask for a new one.", "/body/exp");
      }
      const expected = await inviteToken(deps, body.email, body.exp, existing?.passwordHash ?? "");
      if (!body.token || !safeEqual(body.token, expected)) {
        throw badRequest("The invite is not valid. Ask for a new one.", "/body/token");
      }
      const hash = await hashPassword(body.password);
      if (existing) {
        // An invite for an existing user is a password reset; it ends every old session.
        await store.sessions.removeForUser(existing.id);
        user = (await store.users.update(existing.id, { passwordHash: hash }))!;
      } else {
        user = await store.users.create(body.email, hash, []);
      }
    } else {
      const open = (await store.settings.all()).open_to_public === true;
      // Refused before the costly hash when it surely will be; register() decides for certain.
      if (!open && await store.users.hasPeople()) {
        throw badRequest("Registration needs an invite from an admin.", "/body/token");
      }
      const result = await store.users.register(
        body.email,
        await hashPassword(body.password),
        open,
      );
      if ("refused" in result) {
        throw result.refused === "taken"
          ? badRequest("That email is already registered.", "/body/email")
          : badRequest("Registration needs an invite from an admin.", "/body/token");
      }
      user = result.user;
    }
    log.info("user registered", { uid: user.id });
    await startSession(c, deps, user);
    return c.json(await withCsrf(c, await userJson(deps, user)));
  });

  const logout = async (c: Context<AppEnv>) => {
    const { csrf } = queryParams(c, z.object({ csrf: z.string({ error: "csrf is required." }) }));
    const hash = c.get("sessionHash");
    if (hash && !safeEqual(csrf, await csrfToken(deps, hash))) {
      throw badRequest("Invalid csrf token.", "/query/csrf");
    }
    await endSession(c, deps);
    return c.redirect(new URL("/login", deps.config.baseUrl).pathname, 302);
  };
  app.get("/user/logout", requireUser, logout);
  app.get("/user/logout.html", requireUser, logout);

  app.get("/user", requireUser, async (c) => {
    const query = queryParams(c, getUserQuery);
    return c.json(await withCsrf(c, await userJson(deps, currentUser(c), query)));
  });

  app.post("/user/:email", requireUser, async (c) => {
    const caller = currentUser(c);
    const user = await target(caller, c.req.param("email"));
    const body = await jsonBody(c, updateBody);
    if (body.roles !== undefined) {
      if (!caller.roles.includes("admin")) throw forbidden("Only an admin may change roles.");
      if (!body.roles.includes("admin") && (await isLastAdmin(user))) {
        throw badRequest("The last admin cannot give up the admin role.", "/body/roles");
      }
    }
    const updated = await store.users.update(user.id, {
      roles: body.roles ? [...new Set(body.roles)] : undefined,
      highlightKeywords: body.highlight_keywords,
      passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
    });
    if (!updated) throw notFound("No such user.");
    if (body.password !== undefined) {
      await store.sessions.removeForUser(user.id);
      if (user.id === caller.id) await startSession(c, deps, updated);
    }
    return c.json(await userJson(deps, updated));
  });

  app.delete("/user/:email", requireUser, async (c) => {
    const user = await target(currentUser(c), c.req.param("email"));
    if (await isLastAdmin(user)) {
      throw badRequest("The last admin cannot be deleted.", "/params/email");
    }
    for (const hook of deps.userDeleted ?? []) await hook(user.id);
    await store.users.remove(user.id);
    log.info("user deleted", { uid: user.id });
    return c.json({ message: "Deleted." });
  });

  const invite = async (c: Context<AppEnv>) => {
    const address = validate(email, c.req.param("email") ?? "", "/params/email");
    return c.json(await createInvite(deps, address));
  };
  app.post("/user/:email/invite", requireAdmin, invite);
  app.post("/user/:email/invite.html", requireAdmin, invite);

  return app;
}
