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
import { hashPassword } from "../lib/password.ts";
import { randomId } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import type { UserRecord } from "../store/users.ts";
import { addDefaultConnection } from "../irc/default_connection.ts";
import type { AppDeps, AppEnv } from "./env.ts";
import { startSession, wallNow } from "./session.ts";

/** A misconfigured proxy repeats its mistake on every request: it is logged once a minute. */
const WARN_EVERY_MS = 60_000;

/** Logs the request in as the user the proxy's header names; runs after loadSession. */
export function proxyLogin(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const header = deps.config.authHeader;
  const warned = new Map<string, number>();
  const warn = (message: string, fields: Record<string, unknown>) => {
    if (Date.now() - (warned.get(message) ?? -Infinity) < WARN_EVERY_MS) return;
    warned.set(message, Date.now());
    log.warn(message, { header, ...fields });
  };

  /** The user `address` names, registered now when new; undefined when it may not be. */
  async function userFor(address: string): Promise<UserRecord | undefined> {
    const known = await deps.store.users.byEmail(address);
    // The bot's account has no login of any kind: a person named as it stays nobody.
    if (known?.roles.includes("bot")) {
      warn("the proxy named the bot's account; not logged in", { email: address });
      return undefined;
    }
    if (known) return known;
    // The first person becomes admin: only the one the operator named may be made so by a header.
    if (!(await deps.store.users.hasPeople()) && address !== deps.config.admin) {
      warn("the proxy named a first user who is not PARLEY_ADMIN; not registered", {
        email: address,
        admin: deps.config.admin ?? "(not set)",
      });
      return undefined;
    }
    // A password nobody knows: the proxy is this account's login (a new one can be set after).
    const result = await deps.store.users.register(
      address,
      await hashPassword(randomId(32)),
      true,
    );
    // "taken": a request of the same person's at the same moment registered them.
    if ("refused" in result) return await deps.store.users.byEmail(address);
    log.info("user registered", { uid: result.user.id, by: "proxy header" });
    await addDefaultConnection(deps, result.user);
    return result.user;
  }

  return async (c, next) => {
    const raw = header ? c.req.header(header) : undefined;
    if (raw === undefined || raw.trim() === "") return await next();
    const parsed = email.safeParse(raw);
    const user = parsed.success ? await userFor(parsed.data) : undefined;
    if (!parsed.success) {
      warn("the proxy's header names no email; the request is not logged in", {
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
