/**
 * The LDAP login (PARLEY_AUTH_LDAP_URL), as Convos's: a password login binds to the directory as
 * the DN its email names (PARLEY_AUTH_LDAP_DN); a bind that succeeds logs the person in, and
 * registers them the first time. The directory is the authority: its password is never kept, so a
 * password changed or an account locked there counts at the next login. A bind refused, or a
 * directory that does not answer, leaves the account's own password to be tried.
 */
import { Client, InvalidCredentialsError } from "ldapts";
import type { UserRecord } from "../store/users.ts";
import { OutsideLogin, type OutsideLoginDeps } from "./outside_login.ts";

/** How long a bind may take, connecting included (Convos's timeout). */
const BIND_TIMEOUT_MS = 10_000;
/** Longest password sent to the directory (the API's own limit). */
const MAX_PASSWORD = 1024;

/** What a bind said: the password is the person's, it is not, or the directory did not answer. */
type BindResult = "ok" | "refused" | "unreachable";

/**
 * A value placed in a DN, escaped (RFC 4514): `,` `+` `"` `\` `<` `>` `;` `=`, a leading `#` or
 * space, a trailing space and NUL, so that an email cannot name another entry.
 *
 * @internal test seam
 */
export function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (ch) => `\\${ch}`)
    .replace(/\0/g, "\\00")
    .replace(/^[ #]/, (ch) => `\\${ch}`)
    .replace(/ $/, "\\ ");
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

/** A simple bind as `dn` with `password`, then an unbind. */
async function simpleBind(url: string, dn: string, password: string): Promise<BindResult> {
  // An empty password is an unauthenticated bind, which directories accept for anyone.
  if (!password || password.length > MAX_PASSWORD) return "refused";
  const client = new Client({ url, timeout: BIND_TIMEOUT_MS, connectTimeout: BIND_TIMEOUT_MS });
  try {
    await client.bind(dn, password);
    return "ok";
  } catch (err) {
    if (err instanceof InvalidCredentialsError) return "refused";
    throw err;
  } finally {
    await client.unbind().catch(() => {/* why: the bind's answer is what counts */});
  }
}

/** Password logins checked against the directory. */
export class DirectoryLogin {
  readonly #url: string;
  readonly #template: string;
  readonly #outside: OutsideLogin;

  constructor(deps: OutsideLoginDeps & { config: { ldapUrl?: string; ldapDn: string } }) {
    this.#url = deps.config.ldapUrl ?? "";
    this.#template = deps.config.ldapDn;
    this.#outside = new OutsideLogin(deps, "ldap");
  }

  /**
   * The user the directory knows by this email and password (registered now when new); undefined
   * when it does not say so, and the account's own password is to be tried.
   */
  async login(email: string, password: string): Promise<UserRecord | undefined> {
    const dn = bindDn(this.#template, email);
    let result: BindResult;
    try {
      result = await simpleBind(this.#url, dn, password);
    } catch (err) {
      this.#outside.warn("the LDAP server did not answer; logins use Parley's own passwords", {
        url: this.#url,
        error: err,
      });
      result = "unreachable";
    }
    return result === "ok" ? await this.#outside.person(email) : undefined;
  }
}
