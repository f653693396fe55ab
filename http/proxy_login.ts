/**
 * Login by a reverse proxy (PARLEY_AUTH_HEADER): a proxy that authenticates people itself
 * (Authelia, authentik, oauth2-proxy, a web server's own login) names the person's email in a
 * header on every request, and Parley takes the request as that user's, registering them the first
 * time it sees them, as Convos's header login does. A session is still opened (the page's socket,
 * its csrf value and its push subscription hang on one), and another user named by the header
 * replaces it. Without the header, the password login works as ever.
 */
import type { MiddlewareHandler } from "hono";
import { email } from "../protocol/contract/fields.ts";
import { OutsideLogin } from "../auth/outside_login.ts";
import type { AppDeps, AppEnv } from "./env.ts";
import { startSession, wallNow } from "./session.ts";

/** Logs the request in as the user the proxy's header names; runs after loadSession. */
export function proxyLogin(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const header = deps.config.authHeader;
  const outside = new OutsideLogin(deps, "proxy header");
  return async (c, next) => {
    const raw = header ? c.req.header(header) : undefined;
    if (raw === undefined || raw.trim() === "") return await next();
    const parsed = email.safeParse(raw);
    // Most requests come with the session of the user named: loadSession has read them already.
    const current = c.get("user");
    const user = !parsed.success
      ? undefined
      : current?.email === parsed.data
      ? current
      : await outside.person(parsed.data);
    if (!parsed.success) {
      outside.warn("the proxy's header names no email; the request is not logged in", {
        header,
        value: raw.slice(0, 100),
      });
    }
    if (!user) {
      // The proxy vouches for someone Parley will not take: a session of another's (this
      // browser's earlier user) does not stand in for them.
      c.set("user", undefined);
      c.set("sessionHash", undefined);
      return await next();
    }
    if (c.get("user")?.id !== user.id) await startSession(c, deps, user, wallNow(deps));
    // What asks for the password again (a new password, an app token) asks the proxy's login.
    c.set("proxyLogin", true);
    await next();
  };
}
