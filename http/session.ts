/** Sessions: the `parley` cookie, its server-side record, and the middleware that reads it. */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { basePath } from "./base_path.ts";
import { hmac, randomId, sha256Hex } from "../lib/crypto.ts";
import type { UserRecord } from "../store/users.ts";
import type { AppDeps, AppEnv } from "./env.ts";
import { forbidden, unauthorized } from "./errors.ts";
import { isHttps } from "./client.ts";
import type { Config } from "../config.ts";
import { underBaseUrl } from "../lib/base_url.ts";
import { SESSIONS_ENDED } from "../protocol/events.ts";

/** The session cookie's name. */
const COOKIE = "parley";
/** Sliding lifetime of a session. */
const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
// Extend the stored expiry at most once a minute, not on every request.
const TOUCH_AFTER_MS = 60 * 1000;
/**
 * How long after giving their password (to log in or register) a session may set a new one
 * without giving the current one again, as GitHub's sudo mode: Convos's client never sends it.
 */
export const RECENT_PASSWORD_MS = 10 * 60 * 1000;

/** The time sessions remember a password by (`AppDeps.wallClock`). */
export function wallNow(deps: AppDeps): number {
  return deps.wallClock?.now() ?? Date.now();
}

function cookieOptions(c: Context, deps: AppDeps) {
  return {
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: isHttps(c, deps.config),
    // Only Parley's pages: under a base path, the host's other sites never see it.
    path: basePath(deps.config.baseUrl) + "/",
    maxAge: SESSION_TTL_MS / 1000,
  };
}

/** Reads the session cookie and, when it names a live session, sets `user` and `sessionHash`. */
export function loadSession(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = getCookie(c, COOKIE);
    if (id && id.length <= 100) {
      const idHash = await sha256Hex(id);
      const session = await deps.store.sessions.get(idHash);
      const now = Date.now();
      if (session && session.expires > now) {
        const user = await deps.store.users.byId(session.userId);
        // A suspension ends the account's sessions; one opened in the same moment ends here.
        if (user && !user.suspended) {
          c.set("user", user);
          c.set("sessionHash", idHash);
          if (await markUsed(deps, idHash, session.expires, now)) {
            setCookie(c, COOKIE, id, cookieOptions(c, deps));
          }
        }
      } else if (session) {
        await deps.store.sessions.remove(idHash);
      }
    }
    await next();
  };
}

/**
 * Records a use of a live session whose expiry was last moved over a minute ago: its expiry moves
 * on and its time of use is now. True when it did (an HTTP answer then renews the cookie). An open
 * page's `/events` socket counts as a use: a page left open for days is not logged out under its
 * user, and its session is not the least recently used one when a new session ends the oldest.
 */
export async function markUsed(
  deps: AppDeps,
  idHash: string,
  expires: number,
  now = Date.now(),
): Promise<boolean> {
  if (now + SESSION_TTL_MS - expires <= TOUCH_AFTER_MS) return false;
  await deps.store.sessions.touch(idHash, now + SESSION_TTL_MS);
  return true;
}

/** What a suspended account's login is answered (only once its password was right). */
export const SUSPENDED = "This account is suspended.";

/** What a request without a user is answered: 401, or 403 for a suspended account's proxy login. */
const noUser = (c: Context<AppEnv>) =>
  c.get("suspendedLogin") ? forbidden(SUSPENDED) : unauthorized();

/** Refuses callers without a session (401), before any input is looked at. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get("user")) throw noUser(c);
  await next();
};

/** Refuses callers who are not admins (401 without a session, 403 with `message` otherwise). */
export function adminOnly(message?: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.get("user");
    if (!user) throw noUser(c);
    if (!user.roles.includes("admin")) throw forbidden(message);
    await next();
  };
}

/** adminOnly with the generic message. */
export const requireAdmin: MiddlewareHandler<AppEnv> = adminOnly();

/** The logged-in user; only for handlers behind requireUser. */
export function currentUser(c: Context<AppEnv>): UserRecord {
  const user = c.get("user");
  if (!user) throw noUser(c);
  return user;
}

/** Removes the request's session, if any, and tells its user's open sockets to check theirs. */
async function endThisSession(c: Context<AppEnv>, deps: AppDeps): Promise<void> {
  const idHash = c.get("sessionHash");
  if (!idHash) return;
  await deps.store.sessions.remove(idHash);
  const user = c.get("user");
  if (user) deps.bus.publish(user.id, SESSIONS_ENDED);
}

/**
 * Starts a new session for a user and sets the cookie (403 for a suspended account); `passwordAt`
 * is when the user gave their password for it (`wallNow`), 0 when they did not (an invite link).
 */
export async function startSession(
  c: Context<AppEnv>,
  deps: AppDeps,
  user: UserRecord,
  passwordAt: number,
): Promise<void> {
  if (user.suspended) throw forbidden(SUSPENDED);
  await endThisSession(c, deps);
  const id = randomId(32);
  const idHash = await sha256Hex(id);
  await deps.store.sessions.create(idHash, user.id, Date.now() + SESSION_TTL_MS, passwordAt);
  setCookie(c, COOKIE, id, cookieOptions(c, deps));
  c.set("user", user);
  c.set("sessionHash", idHash);
}

/**
 * The request's session, opened now for a user the proxy's header vouched for without one (a
 * script's request: http/proxy_login.ts); only for handlers behind requireUser.
 */
export async function sessionFor(c: Context<AppEnv>, deps: AppDeps): Promise<string> {
  const hash = c.get("sessionHash");
  if (hash) return hash;
  await startSession(c, deps, currentUser(c), wallNow(deps));
  return c.get("sessionHash")!;
}

/** When the user of the current session last gave their password in it; 0 when never. */
export async function sessionPasswordAt(c: Context<AppEnv>, deps: AppDeps): Promise<number> {
  // The proxy that logged this request in is the account's login, and has just been passed.
  if (c.get("proxyLogin")) return wallNow(deps);
  const idHash = c.get("sessionHash");
  return idHash ? (await deps.store.sessions.get(idHash))?.passwordAt ?? 0 : 0;
}

/**
 * Where a logout sends the browser: the login page, or the reverse proxy's own logout when the
 * proxy logs people in (its login would open another session at once).
 */
export function afterLogout(config: Config): string {
  return config.authLogoutUrl ?? underBaseUrl(config.baseUrl, "login").pathname;
}

/** Ends the current session and clears the cookie. */
export async function endSession(c: Context<AppEnv>, deps: AppDeps): Promise<void> {
  await endThisSession(c, deps);
  deleteCookie(c, COOKIE, {
    path: basePath(deps.config.baseUrl) + "/",
    secure: isHttps(c, deps.config),
  });
  c.set("user", undefined);
  c.set("sessionHash", undefined);
}

/** The CSRF value of the current session: an HMAC of its hash, so it needs no storage. */
export function csrfToken(deps: AppDeps, sessionHash: string): Promise<string> {
  return hmac(deps.config.secret, `csrf:${sessionHash}`);
}
