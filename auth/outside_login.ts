/**
 * People another login vouches for (the reverse proxy's header, the LDAP directory): found by
 * email, or registered the first time they come, with the default connection, as Convos's
 * outside logins do. The first person becomes admin, so an outside login registers into an empty
 * install only the one the operator named (PARLEY_ADMIN).
 */
import { hashPassword } from "../lib/password.ts";
import { randomId } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import type { Config } from "../config.ts";
import type { Store } from "../store/mod.ts";
import type { UserRecord } from "../store/users.ts";
import type { ConnectionService } from "../irc/connection_service.ts";
import { addDefaultConnection } from "../irc/default_connection.ts";

/** What finding and registering people needs. */
export interface OutsideLoginDeps {
  config: Config;
  store: Store;
  connections: ConnectionService;
}

/** A misconfiguration repeats on every login: each warning is logged at most once a minute. */
const WARN_EVERY_MS = 60_000;

/** One outside login (`by` names it in the log). */
export class OutsideLogin {
  readonly #deps: OutsideLoginDeps;
  readonly #by: string;
  readonly #warned = new Map<string, number>();

  constructor(deps: OutsideLoginDeps, by: string) {
    this.#deps = deps;
    this.#by = by;
  }

  /** Logs a warning, unless the same one was logged less than a minute ago. */
  warn(message: string, fields: Record<string, unknown> = {}): void {
    if (Date.now() - (this.#warned.get(message) ?? -Infinity) < WARN_EVERY_MS) return;
    this.#warned.set(message, Date.now());
    log.warn(message, { by: this.#by, ...fields });
  }

  /** The user `address` names, registered now when new; undefined when they may not log in. */
  async person(address: string): Promise<UserRecord | undefined> {
    const { store, config } = this.#deps;
    const known = await store.users.byEmail(address);
    // The bot's account has no login of any kind: someone named as it stays nobody.
    if (known?.roles.includes("bot")) {
      this.warn("an outside login named the bot's account; not logged in", { email: address });
      return undefined;
    }
    if (known) return known;
    if (!(await store.users.hasPeople()) && address !== config.admin) {
      this.warn("an outside login named a first user who is not PARLEY_ADMIN; not registered", {
        email: address,
        admin: config.admin ?? "(not set)",
      });
      return undefined;
    }
    // A password nobody knows: the outside login is this account's (a new one can be set after).
    const result = await store.users.register(address, await hashPassword(randomId(32)), true);
    // "taken": a login of the same person's at the same moment registered them.
    if ("refused" in result) return await store.users.byEmail(address);
    log.info("user registered", { uid: result.user.id, by: this.#by });
    await addDefaultConnection(this.#deps, result.user);
    return result.user;
  }
}
