/**
 * The LDAP login (PARLEY_AUTH_LDAP_URL), as Convos's: a password login binds to the directory as
 * the DN its email names (PARLEY_AUTH_LDAP_DN), or, as The Lounge can, as the one entry a search
 * by its email finds (PARLEY_AUTH_LDAP_SEARCH_BASE); a bind that succeeds logs the person in, and
 * registers them the first time. The directory is the authority: its password is never kept, so a
 * password changed or an account locked there counts at the next login. A bind refused, or a
 * directory that does not answer, leaves the account's own password to be tried.
 */
import { Client, InvalidCredentialsError, SizeLimitExceededError } from "ldapts";
import { type Config, readSettingFile } from "../config.ts";
import type { UserRecord } from "../store/users.ts";
import { OutsideLogin, type OutsideLoginDeps } from "./outside_login.ts";

/** How long a bind may take, connecting included (Convos's timeout). */
const BIND_TIMEOUT_MS = 10_000;
/** Longest password sent to the directory (the API's own limit). */
const MAX_PASSWORD = 1024;

/**
 * Logins asking the directory at once, and logins waiting for a turn (at most BIND_TIMEOUT_MS):
 * the login throttle counts per address, and a flood from many addresses must not open a
 * connection to the directory each. A login past them does not ask it: the account's own
 * password is tried, as while the directory is down.
 *
 * @internal test seam
 */
export const DIRECTORY_TURNS = { atOnce: 8, waiting: 100, waitMs: BIND_TIMEOUT_MS };

/** Turns to ask the directory: `run` gives `busy` when none comes in time. */
class Turns {
  #running = 0;
  #waiting: (() => void)[] = [];

  async run<T>(fn: () => Promise<T>): Promise<T | "busy"> {
    if (this.#running >= DIRECTORY_TURNS.atOnce) {
      if (this.#waiting.length >= DIRECTORY_TURNS.waiting) return "busy";
      const turn = new Promise<boolean>((resolve) => {
        const go = () => {
          clearTimeout(timer);
          resolve(true);
        };
        // Out of the queue in the same step: a turn is never handed to a login that gave up.
        const timer = setTimeout(() => {
          this.#waiting = this.#waiting.filter((w) => w !== go);
          resolve(false);
        }, DIRECTORY_TURNS.waitMs);
        this.#waiting.push(go);
      });
      if (!await turn) return "busy";
    } else this.#running++;
    try {
      return await fn();
    } finally {
      // The turn passes to the next waiting login, or is given back.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

/**
 * A value placed in a DN, escaped (RFC 4514): `,` `+` `"` `\` `<` `>` `;` `=`, a leading `#` or
 * space, a trailing space and NUL, so that an email cannot name another entry.
 *
 * @internal test seam
 */
export function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars.map((ch, i) => {
    if (ch === "\0") return "\\00";
    const edge = (i === 0 && (ch === " " || ch === "#")) || (i === chars.length - 1 && ch === " ");
    return edge || '\\,+"<>;='.includes(ch) ? `\\${ch}` : ch;
  }).join("");
}

/**
 * The DN `email` binds as: `%uid` its local part, `%domain` and `%tld` its domain without and
 * with only its last label (`ann@mail.example.com`: `mail.example` and `com`), `%email` the whole.
 *
 * @internal test seam
 */
export function bindDn(template: string, email: string): string {
  const at = email.lastIndexOf("@");
  const host = email.slice(at + 1);
  const dot = host.lastIndexOf(".");
  const parts: Record<string, string> = {
    uid: email.slice(0, at),
    domain: dot < 0 ? host : host.slice(0, dot),
    tld: dot < 0 ? "" : host.slice(dot + 1),
    email,
  };
  return template.replace(/%(uid|domain|tld|email)/g, (_, k: string) => escapeDnValue(parts[k]));
}

/**
 * A value placed in a search filter, escaped (RFC 4515): `*` `(` `)` `\` and NUL, so that an
 * email cannot widen the filter (`*@example.com` would match everyone).
 *
 * @internal test seam
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (ch) => `\\${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Where the directory is: its URL, and the CAs its `ldaps://` certificate may be signed by. */
interface Server {
  url: string;
  ca?: string;
}

/** Runs `fn` on a client of the directory, unbound after. */
async function withClient<T>(server: Server, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({
    url: server.url,
    timeout: BIND_TIMEOUT_MS,
    connectTimeout: BIND_TIMEOUT_MS,
    tlsOptions: server.ca ? { ca: [server.ca] } : undefined,
  });
  try {
    return await fn(client);
  } finally {
    await client.unbind().catch(() => {/* why: the answer before it is what counts */});
  }
}

/** Whether a simple bind as `dn` with `password` succeeds; a directory that does not answer throws. */
function simpleBind(server: Server, dn: string, password: string): Promise<boolean> {
  return withClient(server, async (client) => {
    try {
      await client.bind(dn, password);
      return true;
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return false;
      throw err;
    }
  });
}

/** Password logins checked against the directory. */
export class DirectoryLogin {
  readonly #server: Server;
  readonly #template: string;
  readonly #search: Config["ldapSearch"];
  readonly #outside: OutsideLogin;
  readonly #turns = new Turns();

  /** The directory login of the configuration, its CA file read (a configuration error if not). */
  static async open(deps: OutsideLoginDeps): Promise<DirectoryLogin> {
    const path = deps.config.ldapCa;
    const ca = path === undefined ? undefined : await readSettingFile(path, "PARLEY_AUTH_LDAP_CA");
    return new DirectoryLogin(deps, ca);
  }

  constructor(deps: OutsideLoginDeps, ca?: string) {
    this.#server = { url: deps.config.ldapUrl ?? "", ca };
    this.#template = deps.config.ldapDn;
    this.#search = deps.config.ldapSearch;
    this.#outside = new OutsideLogin(deps, "ldap");
  }

  /** The DN `email` binds as: built from it, or the one entry the search finds (else undefined). */
  async #dnOf(email: string): Promise<string | undefined> {
    const search = this.#search;
    if (!search) return bindDn(this.#template, email);
    return await withClient(this.#server, async (client) => {
      if (search.bindDn) await client.bind(search.bindDn, search.bindPassword);
      const filter = search.filter.replaceAll("%email", escapeFilterValue(email));
      let found: { dn: string }[] = [];
      let several = false;
      try {
        const answer = await client.search(search.base, {
          scope: "sub",
          filter,
          attributes: ["dn"],
          sizeLimit: 2,
        });
        found = answer.searchEntries;
        several = found.length > 1;
      } catch (err) {
        if (!(err instanceof SizeLimitExceededError)) throw err;
        several = true;
      }
      // Two people with one email: which one logs in is not Parley's to guess.
      if (several) this.#outside.warn("the LDAP search found several entries", { filter });
      return several ? undefined : found[0]?.dn;
    });
  }

  /**
   * The user the directory knows by this email and password (registered now when new); undefined
   * when it does not say so, and the account's own password is to be tried.
   */
  async login(email: string, password: string): Promise<UserRecord | undefined> {
    // An empty password is an unauthenticated bind, which directories accept for anyone.
    if (!password || password.length > MAX_PASSWORD) return undefined;
    try {
      const bound = await this.#turns.run(async () => {
        const dn = await this.#dnOf(email);
        return dn !== undefined && await simpleBind(this.#server, dn, password);
      });
      if (bound === "busy") {
        this.#outside.warn("too many logins at once: the LDAP directory was not asked", {
          url: this.#server.url,
        });
      } else if (bound) return await this.#outside.person(email);
    } catch (err) {
      this.#outside.warn(
        "the LDAP directory could not be asked; logins use Parley's own passwords",
        { url: this.#server.url, error: err },
      );
    }
    return undefined;
  }
}
