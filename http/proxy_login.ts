/**
 * Login by a reverse proxy (PARLEY_AUTH_HEADER): a proxy that authenticates people itself
 * (Authelia, authentik, oauth2-proxy, a web server's own login) names the person's email in a
 * header on every request, and Parley takes the request as that user's, registering them the first
 * time it sees them, as Convos's header login does. A browser's request opens a session (the page's
 * socket, its csrf value and its push subscription hang on one), and another user named by the
 * header replaces it. A script's request (no cookie, and nothing a browser sends of the page it
 * came from) is answered as the user without one: a session for each request of a script that polls would
 * fill the account's list and end the user's real sessions, the least recently used first. What
 * needs a session (the `/events` socket, a push subscription) opens one then (`sessionFor`).
 * Without the header, the password login works as ever.
 */
import type { Context, MiddlewareHandler } from "hono";
import { email } from "../protocol/contract/fields.ts";
import { OutsideLogin } from "../auth/outside_login.ts";
import type { AppDeps, AppEnv } from "./env.ts";
import { startSession, wallNow } from "./session.ts";

/**
 * Whether a browser sent the request: it says which site's page did (`Sec-Fetch-Site`, sent over
 * HTTPS and to localhost), or names the page (the Referer Parley's pages keep for their own origin,
 * over plain HTTP too). A script does neither.
 */
function fromBrowser(c: Context): boolean {
  return c.req.header("sec-fetch-site") !== undefined || c.req.header("referer") !== undefined;
}

/**
 * Logs the request in as the user the proxy's header names; runs after loadSession. `always`: the
 * request needs a session whoever sent it (a socket lives as long as its session).
 */
export function proxyLogin(deps: AppDeps, always = false): MiddlewareHandler<AppEnv> {
  const header = deps.config.authHeader;
  const outside = new OutsideLogin(deps, "proxy header");
  return async (c, next) => {
    const raw = header ? c.req.header(header) : undefined;
    if (raw === undefined || raw.trim() === "") return await next();
    const parsed = email.safeParse(raw);
    // Most requests come with the session of the user named: loadSession has read them already.
    const known = c.get("user");
    const user = !parsed.success
      ? undefined
      : known?.email === parsed.data
      ? known
      : await outside.person(parsed.data);
    if (!parsed.success) {
      outside.warn("the proxy's header names no email; the request is not logged in", {
        header,
        value: raw.slice(0, 100),
      });
    }
    if (!user || user.suspended) {
      if (user) {
        outside.warn("the proxy's header names a suspended account; not logged in", {
          email: user.email,
        });
        // Its person has no password to try: the page says why instead of asking for one.
        c.set("suspendedLogin", true);
      }
      // The proxy vouches for someone Parley will not take: a session of another's (this
      // browser's earlier user) does not stand in for them.
      c.set("user", undefined);
      c.set("sessionHash", undefined);
      return await next();
    }
    // What asks for the password again (a new password, an app token) asks the proxy's login.
    c.set("proxyLogin", true);
    if (known?.id !== user.id) {
      if (always || known || fromBrowser(c)) {
        await startSession(c, deps, user, wallNow(deps));
      } else c.set("user", user); // a script's request: no session
    }
    await next();
  };
}
