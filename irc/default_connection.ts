/** The connection every new user starts with: the server's default connection, connected. */
import { type Config, DEFAULT_CONNECTION } from "../config.ts";
import { nickFromEmail, parseIrcUrl } from "./url.ts";
import { isChannel } from "../lib/casefold.ts";
import { log } from "../lib/log.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import type { ConnectionService } from "./connection_service.ts";

/** What adding the default connection needs. */
interface DefaultConnectionDeps {
  config: Config;
  store: Store;
  connections: ConnectionService;
}

/**
 * The default connection's URL for one user: the email's local part as nick, and `tls` spelled
 * out (as Convos stores it) unless the URL names them already. Parley reads a bare irc:// as
 * plain text, so `tls` says what Parley will do, not Convos's "try TLS first".
 */
function defaultConnectionUrl(defaultConnection: string, email: string): string {
  const url = new URL(defaultConnection.trim());
  const [first] = defaultChannels(url);
  if (first) url.pathname = `/${encodeURIComponent(first)}`;
  const params = url.searchParams;
  if (!params.has("nick")) params.set("nick", nickFromEmail(email));
  if (!params.has("tls")) params.set("tls", parseIrcUrl(url.href).tls ? "1" : "0");
  return url.href;
}

/**
 * The channels the default connection's path names: `#a,#b` (the first run's list). A second name
 * that is no channel is the first one's key, as in a connection URL: the path is left to say so.
 */
function defaultChannels(url: URL): string[] {
  let names: string[];
  try {
    names = decodeURIComponent(url.pathname.replace(/^\/+/, "")).split(/[\s,]+/).filter(Boolean);
  } catch {
    return [];
  }
  return names.length > 1 && names.every((n) => isChannel(n)) ? names.slice(0, 20) : [];
}

/**
 * Adds and connects the default connection for a newly registered user. While the default is
 * still the built-in one (no PARLEY_DEFAULT_CONNECTION, no admin's choice), the first admin's
 * (the only user who registers as admin) is added without connecting: the first run is where the
 * admin picks the network (FirstRun replaces it), and until then the built-in network must not
 * be reached, nor tried again and again on a machine offline. A default the operator configured
 * is a choice made: connected at once, as Convos does. A failure (a bad setting, an unreachable
 * host) is logged; the registration itself stands.
 */
export async function addDefaultConnection(
  deps: DefaultConnectionDeps,
  user: UserRecord,
): Promise<void> {
  if (!deps.config.newUserConnection) return;
  try {
    const settings = await deps.store.settings.current(deps.config.defaultConnection);
    if (!settings.new_user_connection) return; // the admin chose none
    const url = defaultConnectionUrl(settings.default_connection, user.email);
    // The admin chose this URL, so the checks meant for a user's own URLs (private addresses,
    // the per-user count) do not apply: the service skips them for trusted (admin) callers.
    const vouched: UserRecord = { ...user, roles: [...new Set([...user.roles, "admin"])] };
    const more = defaultChannels(new URL(settings.default_connection.trim())).slice(1);
    const unchosen = settings.default_connection.trim() === DEFAULT_CONNECTION;
    const wanted_state = unchosen && user.roles.includes("admin") ? "disconnected" : "connected";
    await deps.connections.create(vouched, { url, wanted_state, join: more }, "/");
  } catch (err) {
    log.warn("default connection not added", { uid: user.id, error: String(err) });
  }
}

/**
 * At a login (the web's or an IRC client's): adds the default connection an account made from the
 * shell is owed. `parley user add` cannot reach the daemon that would connect it (on SQLite it
 * runs beside it; on PostgreSQL no node is told), so the account keeps a mark and its first login
 * pays it, once however many logins race.
 */
export async function settleDefaultConnection(
  deps: DefaultConnectionDeps,
  user: UserRecord,
): Promise<void> {
  if (!user.defaultConnectionDue) return;
  if (!(await deps.store.users.takeDefaultConnectionDue(user.id))) return;
  await addDefaultConnection(deps, user);
}
