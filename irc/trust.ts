/**
 * Who may do what with IRC connections beyond the ordinary user's limits: shared by the connection
 * service (checks before storing) and the manager (the connect itself).
 */
import type { Config } from "../config.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import { parseIrcUrl } from "./url.ts";

/**
 * Users whose connections the operator vouches for: admins, and the bot (its connections come
 * from bot.json). Limits meant for ordinary users do not apply to them.
 */
export function trusted(user: UserRecord): boolean {
  return user.roles.includes("admin") || user.roles.includes("bot");
}

/**
 * Whether a user's connections may reach loopback, private and link-local addresses: admins and
 * the bot always, everyone when the environment or the server settings allow it.
 */
async function mayReachPrivate(
  deps: { config: Config; store: Store },
  user: UserRecord | number,
): Promise<boolean> {
  if (deps.config.ircAllowPrivate) return true;
  const record = typeof user === "number" ? await deps.store.users.byId(user) : user;
  if (record && trusted(record)) return true;
  return (await deps.store.settings.current()).irc_allow_private;
}

/**
 * Whether the default connection's server is exactly `target` (host and port): an admin chose it
 * for every new user (default_connection.ts adds it on their behalf), so anyone's
 * connection may reach it, private or not.
 */
async function isDefaultServer(
  deps: { config: Config; store: Store },
  target: { host: string; port: number },
): Promise<boolean> {
  const settings = await deps.store.settings.current(deps.config.defaultConnection);
  try {
    const chosen = parseIrcUrl(settings.default_connection);
    return chosen.host === target.host && chosen.port === target.port;
  } catch {
    return false; // an unusable setting vouches for nothing
  }
}

/** Whether a user's connection may reach `target` when it is a private address. */
export async function mayReachTarget(
  deps: { config: Config; store: Store },
  user: UserRecord | number,
  target: { host: string; port: number },
): Promise<boolean> {
  return await mayReachPrivate(deps, user) || await isDefaultServer(deps, target);
}
