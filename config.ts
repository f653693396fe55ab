/** Configuration: environment variables and `parley daemon` flags, validated into one typed Config. */
import { join, resolve } from "node:path";
import { parseArgs as nodeParseArgs } from "node:util";
import type { LogFormat, LogLevel } from "./lib/log.ts";
import { randomId } from "./lib/crypto.ts";
import { DEFAULT_TIMING, FAST_TIMING, type IrcTiming } from "./irc/engine/timing.ts";
import { RETENTION_ERROR, retentionDays } from "./protocol/retention.ts";
import { DATABASE_SCHEMES } from "./store/mod.ts";
import { basePath, basePathRefusal } from "./http/base_path.ts";

/** Everything the daemon needs to know at start. */
export interface Config {
  /** Data folder: database, files, secret, bot.json. */
  home: string;
  /** Where to listen, e.g. http://127.0.0.1:3000. */
  listen: URL;
  /** External URL used in links (invites, files); defaults to `listen`. */
  baseUrl: URL;
  reverseProxy: boolean;
  /**
   * A header the reverse proxy sets to the email of the person it has authenticated (lower-case
   * name): requests bearing it are logged in as that user, who is registered on first sight.
   */
  authHeader?: string;
  /** With an outside login: the only email it may register as the first user (the admin). */
  admin?: string;
  /** With `authHeader`: where logging out sends the browser (the proxy's own logout). */
  authLogoutUrl?: string;
  /** An LDAP server that password logins are checked against first (`ldap://` or `ldaps://`). */
  ldapUrl?: string;
  /** The DN a login binds as, from its email: `%uid`, `%domain`, `%tld` and `%email` filled in. */
  ldapDn: string;
  /**
   * Where a login's entry is searched for instead (its DN is then the entry's): the base, the
   * filter (`%email` filled in), and the account that searches (anonymous when unset).
   */
  ldapSearch?: { base: string; filter: string; bindDn?: string; bindPassword?: string };
  /** PEM file of the CA(s) an `ldaps://` directory's certificate is checked against, besides the usual. */
  ldapCa?: string;
  secret: string;
  maxUploadSize: number;
  /** Milliseconds between two connects to the same IRC host. */
  connectDelay: number;
  /** Most connections registering with one host at once (the rest wait their turn, `queued`). */
  connectConcurrency: number;
  logLevel: LogLevel;
  /** `logfmt` lines or one JSON object per line. */
  logFormat: LogFormat;
  /** Serve Prometheus metrics at /metrics: on the listen address, or on `metricsListen` only. */
  metrics: boolean;
  /** A listen address of their own for the metrics (`PARLEY_METRICS=http://HOST:PORT`). */
  metricsListen?: URL;
  /** The default connection URL offered to new users. */
  defaultConnection: string;
  tlsCert?: string;
  tlsKey?: string;
  embedAllowPrivate: boolean;
  /** Let every user's IRC connections reach loopback, private and link-local addresses. */
  ircAllowPrivate: boolean;
  /** Give every newly registered user the default connection, connected (as Convos does). */
  newUserConnection: boolean;
  /** URL asked for the newest version; empty turns the check off. */
  updateUrl: string;
  /** The IRC engine's delays: production ones, or the test suite's (`PARLEY_TEST_FAST_IRC=1`). */
  ircTiming: IrcTiming;
  /** A postgres:// URL: the store is that PostgreSQL database instead of SQLite in `home`. */
  databaseUrl?: string;
  /** On PostgreSQL, how often a node looks for users nobody runs (ms). */
  clusterScanMs: number;
  /** Where IRC clients attach (the bouncer listener); empty: off. */
  ircListen: IrcListenAddress[];
  /** Where the ident server listens (irc/identd.ts); undefined: off. */
  identdListen?: { hostname: string; port: number };
  /** PEM files of the `ircs://` listener. */
  ircTlsCert?: string;
  ircTlsKey?: string;
  /**
   * PARLEY_MESSAGE_RETENTION in days (0: keep everything); undefined when not set, and the
   * admin setting decides.
   */
  messageRetentionDays?: number;
}

/** One address of the bouncer listener. */
interface IrcListenAddress {
  tls: boolean;
  hostname: string;
  port: number;
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {}

/** One configuration option: its flag, its environment variable, its default and its help line. */
interface Option {
  /** `--flag`; the environment variable is `env`. */
  flag: string;
  env: string;
  /** Used when neither the flag nor the variable gives a value (or gives an empty one). */
  default?: string;
  help: string;
  /**
   * Holds a secret: it is also read from a file (`--FLAG-file`, `ENV_FILE`), which keeps it out
   * of the process list, where every local user can read a command line.
   */
  secret?: boolean;
}

/** Convos's: `ann@example.com` binds as `uid=ann,dc=example,dc=com`. */
const DEFAULT_LDAP_DN = "uid=%uid,dc=%domain,dc=%tld";

/** The default URL offered to new users when nothing else is configured. */
export const DEFAULT_CONNECTION = "ircs://irc.libera.chat:6697/%23parley";

/** Every option, in the order `parley daemon --help` lists them. */
export const OPTIONS: readonly Option[] = [
  { flag: "home", env: "PARLEY_HOME", default: "./local/parley", help: "data folder" },
  {
    flag: "listen",
    env: "PARLEY_LISTEN",
    default: "http://127.0.0.1:3000",
    help: "listen URL",
  },
  { flag: "base-url", env: "PARLEY_BASE_URL", help: "external URL used in links" },
  { flag: "reverse-proxy", env: "PARLEY_REVERSE_PROXY", help: "trust X-Forwarded-* headers (0/1)" },
  {
    flag: "auth-header",
    env: "PARLEY_AUTH_HEADER",
    help: "header in which the reverse proxy names the logged-in user's email",
  },
  {
    flag: "admin",
    env: "PARLEY_ADMIN",
    help: "with --auth-header or --auth-ldap-url: the email they may register as the first user",
  },
  {
    flag: "auth-logout-url",
    env: "PARLEY_AUTH_LOGOUT_URL",
    help: "with --auth-header: where logging out sends the browser (the proxy's logout)",
  },
  {
    flag: "auth-ldap-url",
    env: "PARLEY_AUTH_LDAP_URL",
    help: "ldap:// or ldaps:// server that password logins are checked against first",
  },
  {
    flag: "auth-ldap-dn",
    env: "PARLEY_AUTH_LDAP_DN",
    default: DEFAULT_LDAP_DN,
    help: "the DN a login binds as (%uid, %domain, %tld, %email from its email)",
  },
  {
    flag: "auth-ldap-ca",
    env: "PARLEY_AUTH_LDAP_CA",
    help: "PEM file of the CA that signed the ldaps:// directory's certificate",
  },
  {
    flag: "auth-ldap-search-base",
    env: "PARLEY_AUTH_LDAP_SEARCH_BASE",
    help: "search for a login's entry under this DN instead of building its DN",
  },
  {
    flag: "auth-ldap-search-filter",
    env: "PARLEY_AUTH_LDAP_SEARCH_FILTER",
    default: "(mail=%email)",
    help: "the search's filter (%email: the login's email)",
  },
  {
    flag: "auth-ldap-bind-dn",
    env: "PARLEY_AUTH_LDAP_BIND_DN",
    help: "the DN that searches (else an anonymous search)",
  },
  {
    flag: "auth-ldap-bind-password",
    env: "PARLEY_AUTH_LDAP_BIND_PASSWORD",
    help: "the searching DN's password",
    secret: true,
  },
  {
    flag: "secret",
    env: "PARLEY_SECRET",
    help: "server secret (else generated in the data folder)",
    secret: true,
  },
  { flag: "tls-cert", env: "PARLEY_TLS_CERT", help: "TLS certificate file for https:// listen" },
  { flag: "tls-key", env: "PARLEY_TLS_KEY", help: "TLS key file for https:// listen" },
  {
    flag: "max-upload-size",
    env: "PARLEY_MAX_UPLOAD_SIZE",
    default: "40000000",
    help: "upload limit in bytes",
  },
  {
    flag: "connect-delay",
    env: "PARLEY_CONNECT_DELAY",
    default: "4",
    help: "seconds between connects to one host",
  },
  {
    flag: "connect-concurrency",
    env: "PARLEY_CONNECT_CONCURRENCY",
    default: "10",
    help: "most connections registering with one host at once",
  },
  {
    flag: "log-level",
    env: "PARLEY_LOG_LEVEL",
    default: "info",
    help: "debug, info, warn or error",
  },
  {
    flag: "log-format",
    env: "PARLEY_LOG_FORMAT",
    default: "logfmt",
    help: "logfmt or json (one object per line)",
  },
  {
    flag: "metrics",
    env: "PARLEY_METRICS",
    default: "0",
    help: "1 serves Prometheus metrics at /metrics; http://HOST:PORT serves them only there",
  },
  {
    flag: "default-connection",
    env: "PARLEY_DEFAULT_CONNECTION",
    default: DEFAULT_CONNECTION,
    help: "default IRC URL for new users",
  },
  {
    flag: "embed-allow-private",
    env: "PARLEY_EMBED_ALLOW_PRIVATE",
    help: "let link previews and Web Push reach private addresses (0/1)",
  },
  {
    flag: "irc-allow-private",
    env: "PARLEY_IRC_ALLOW_PRIVATE",
    help: "let every user connect to private IRC servers (0/1)",
  },
  {
    flag: "new-user-connection",
    env: "PARLEY_NEW_USER_CONNECTION",
    default: "1",
    help: "give each new user the default connection (0/1)",
  },
  {
    flag: "update-url",
    env: "PARLEY_UPDATE_URL",
    help: "URL asked for the newest version (empty: off)",
  },
  {
    flag: "database-url",
    env: "PARLEY_DATABASE_URL",
    help: "postgres:// URL: store everything in PostgreSQL (default: SQLite in the data folder)",
    secret: true,
  },
  {
    flag: "irc-listen",
    env: "PARLEY_IRC_LISTEN",
    help: "where IRC clients attach: ircs://HOST:PORT and/or irc://127.0.0.1:PORT, comma-separated",
  },
  { flag: "irc-tls-cert", env: "PARLEY_IRC_TLS_CERT", help: "TLS certificate file for ircs://" },
  { flag: "irc-tls-key", env: "PARLEY_IRC_TLS_KEY", help: "TLS key file for ircs://" },
  {
    flag: "irc-listen-plain-anywhere",
    env: "PARLEY_IRC_LISTEN_PLAIN_ANYWHERE",
    help: "let irc:// (no TLS) listen beyond loopback (0/1)",
  },
  {
    flag: "identd-listen",
    env: "PARLEY_IDENTD_LISTEN",
    help: "answer IRC servers' ident queries (RFC 1413) on HOST[:PORT], port 113 by default",
  },
  {
    flag: "message-retention",
    env: "PARLEY_MESSAGE_RETENTION",
    help:
      "delete messages older than this (365d, 12w, 1y; 0: keep all); overrides the admin setting",
  },
];

/** The flag and variable that name a file holding a secret option's value. */
export function fileForm(o: Option): { flag: string; env: string } {
  return { flag: `${o.flag}-file`, env: `${o.env}_FILE` };
}

/** A command's own options, beside the configuration ones: `--name value`, maybe repeated. */
interface OwnOption {
  name: string;
  multiple?: boolean;
  /** A switch that takes no value (`--merge`). */
  boolean?: boolean;
}

/** A command line, parsed. */
interface CommandLine {
  positional: string[];
  /** The command's own options; repeatable ones keep every value. */
  options: Map<string, string[]>;
  /** The command's own switches that were given. */
  switches: Set<string>;
  /** Configuration flags as environment names (`--home /x` is PARLEY_HOME=/x). */
  env: Record<string, string>;
  help: boolean;
}

/**
 * Parses a command line against OPTIONS and the command's own options (node:util's parser:
 * `--flag value` and `--flag=value`, and `--` ends the options). Every command takes the
 * configuration flags, so `parley user list --home /srv/parley` works like the daemon.
 */
export function parseCommandLine(
  args: string[],
  own: OwnOption[] = [],
  positionals = true,
): CommandLine {
  const spec: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const o of OPTIONS) {
    spec[o.flag] = { type: "string" };
    if (o.secret) spec[fileForm(o).flag] = { type: "string" };
  }
  for (const o of own) {
    spec[o.name] = o.boolean ? { type: "boolean" } : { type: "string", multiple: !!o.multiple };
  }
  let parsed;
  try {
    parsed = nodeParseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (err) {
    throw argumentError(err as Error & { code?: string });
  }
  if (!positionals && parsed.positionals.length) {
    throw new ConfigError(`unexpected argument "${parsed.positionals[0]}"`);
  }
  const out: CommandLine = {
    positional: parsed.positionals,
    options: new Map(),
    switches: new Set(),
    env: {},
    help: parsed.values.help === true,
  };
  for (const o of own) {
    const v = parsed.values[o.name];
    if (v === true) out.switches.add(o.name);
    else if (v !== undefined) {
      out.options.set(o.name, Array.isArray(v) ? v.map(String) : [String(v)]);
    }
  }
  for (const o of OPTIONS) {
    const v = parsed.values[o.flag];
    if (typeof v === "string") out.env[o.env] = v;
    const file = o.secret ? parsed.values[fileForm(o).flag] : undefined;
    if (typeof file === "string") out.env[fileForm(o).env] = file;
  }
  return out;
}

/** node:util's parse errors, said the way the rest of the command line says them. */
function argumentError(err: Error & { code?: string }): ConfigError {
  const flag = /'(-[^' ]+)/.exec(err.message)?.[1] ?? "";
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return new ConfigError(`unknown flag ${flag}`);
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return new ConfigError(`${flag} needs a value`);
  }
  return new ConfigError(err.message);
}

/**
 * Reads `--flag value` and `--flag=value` pairs (configuration flags only) into environment names.
 *
 * @internal test seam
 */
export function flagsToEnv(args: string[]): Record<string, string> {
  return parseCommandLine(args, [], false).env;
}

/** Limit on a secret file: a secret or a URL, never a large file named by mistake. */
const SECRET_FILE_MAX = 64 * 1024;

/**
 * Replaces each `*_FILE` variable with the contents of the file it names (without the final
 * newline). Giving a secret both ways is an error: which one wins would be a guess.
 */
export async function readSecretFiles(
  env: Record<string, string | undefined>,
): Promise<Record<string, string | undefined>> {
  const out = { ...env };
  for (const o of OPTIONS.filter((o) => o.secret)) {
    const path = env[fileForm(o).env];
    if (!path) continue;
    if (env[o.env]) {
      throw new ConfigError(`${o.env} and ${fileForm(o).env} are both set; keep one`);
    }
    out[o.env] = await readSecretFile(path, fileForm(o).env);
    delete out[fileForm(o).env];
  }
  return out;
}

/** The contents of a file holding one secret; errors name the file, never its contents. */
export async function readSecretFile(path: string, what: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    using file = await Deno.open(path);
    if ((await file.stat()).size > SECRET_FILE_MAX) {
      throw new ConfigError(`${what}: ${path} is larger than ${SECRET_FILE_MAX} bytes`);
    }
    bytes = await new Response(file.readable).bytes();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`${what}: cannot read ${path} (${(err as Error).name})`);
  }
  return new TextDecoder().decode(bytes).replace(/\r?\n$/, "");
}

/** PARLEY_METRICS: 0 or 1, or the http:// address of a listener for the metrics alone. */
function parseMetrics(value: string): { metrics: boolean; metricsListen?: URL } {
  if (!/^[a-z]+:\/\//i.test(value)) {
    try {
      return { metrics: parseBool("PARLEY_METRICS", value) };
    } catch {
      throw new ConfigError(
        `PARLEY_METRICS must be 0, 1 or the http://HOST:PORT of a listener of its own, not "${value}"`,
      );
    }
  }
  return { metrics: true, metricsListen: parseUrl("PARLEY_METRICS", value, ["http"]) };
}

/** The option's value: the environment's (flags merged in), else its default. */
function valueOf(env: Record<string, string | undefined>, flag: string): string {
  const o = OPTIONS.find((o) => o.flag === flag)!;
  return env[o.env] || o.default || "";
}

function parseBool(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "") return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be 0 or 1, not "${value}"`);
}

function parseNumber(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) {
    throw new ConfigError(`${name} must be a number >= ${min}, not "${value}"`);
  }
  return n;
}

function parseUrl(name: string, value: string, schemes: string[], secret = false): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The URL parser refuses a port past 65535 like any other fault: say which it is.
    const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/@]*@)?(?:\[[^\]]*\]|[^/:]*):(\d+)/i.exec(value);
    if (port && Number(port[1]) > 65535) {
      throw new ConfigError(`${name}: the port ${port[1]} is past 65535`);
    }
    // A database URL holds a password: the message must not repeat it.
    throw new ConfigError(`${name} must be a URL${secret ? "" : `, not "${value}"`}`);
  }
  if (!schemes.includes(url.protocol.slice(0, -1))) {
    throw new ConfigError(`${name} must start with ${schemes.map((s) => s + "://").join(" or ")}`);
  }
  return url;
}

/**
 * The port a listen URL means. The URL parser drops a scheme's default port (`https://x:443` has
 * `port` ""), and port "" read as a number is 0, any free port: so the scheme's port is spelled
 * out here.
 */
export function listenPort(url: URL): number {
  return Number(url.port || (url.protocol === "https:" ? 443 : 80));
}

/** Builds a Config from environment values (flags already merged in). Pure: touches no files. */
export function parseConfig(
  env: Record<string, string | undefined>,
): Omit<Config, "secret"> & { secret?: string } {
  const home = resolve(valueOf(env, "home"));
  const listen = parseUrl("PARLEY_LISTEN", valueOf(env, "listen"), [
    "http",
    "https",
  ]);
  if (listen.pathname.replace(/^\/$/, "") || listen.search || listen.username) {
    throw new ConfigError(
      `PARLEY_LISTEN: "${listen.href}" must be only a scheme, host and port (a path for links ` +
        "goes in PARLEY_BASE_URL)",
    );
  }
  const baseUrl = env.PARLEY_BASE_URL
    ? parseUrl("PARLEY_BASE_URL", env.PARLEY_BASE_URL, ["http", "https"])
    : new URL(listen.href);
  const refusal = basePathRefusal(basePath(baseUrl));
  if (refusal || baseUrl.search || baseUrl.hash || baseUrl.username) {
    throw new ConfigError(
      `PARLEY_BASE_URL: "${baseUrl.href}" ${
        refusal ?? "must be only a scheme, host, port and path"
      }`,
    );
  }
  const tlsCert = env.PARLEY_TLS_CERT || undefined;
  const tlsKey = env.PARLEY_TLS_KEY || undefined;
  if (listen.protocol === "https:" && (!tlsCert || !tlsKey)) {
    throw new ConfigError(
      "PARLEY_LISTEN is https:// but PARLEY_TLS_CERT and PARLEY_TLS_KEY are not both set",
    );
  }
  const logLevel = valueOf(env, "log-level").toLowerCase();
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    throw new ConfigError(`PARLEY_LOG_LEVEL must be debug, info, warn or error, not "${logLevel}"`);
  }
  const logFormat = valueOf(env, "log-format").toLowerCase();
  if (!["logfmt", "json"].includes(logFormat)) {
    throw new ConfigError(`PARLEY_LOG_FORMAT must be logfmt or json, not "${logFormat}"`);
  }
  const defaultConnection = valueOf(env, "default-connection");
  parseUrl("PARLEY_DEFAULT_CONNECTION", defaultConnection, ["irc", "ircs"]);
  const databaseUrl = env.PARLEY_DATABASE_URL || undefined;
  if (databaseUrl !== undefined) {
    const url = parseUrl("PARLEY_DATABASE_URL", databaseUrl, DATABASE_SCHEMES, true);
    if (!url.hostname && !url.searchParams.get("host")) {
      throw new ConfigError("PARLEY_DATABASE_URL names no host");
    }
  }
  const ircListen = parseIrcListen(env);
  const retention = env.PARLEY_MESSAGE_RETENTION || undefined;
  const messageRetentionDays = retention === undefined ? undefined : retentionDays(retention);
  if (retention !== undefined && messageRetentionDays === undefined) {
    throw new ConfigError(`PARLEY_MESSAGE_RETENTION: ${RETENTION_ERROR} Not "${retention}".`);
  }
  const reverseProxy = parseBool("PARLEY_REVERSE_PROXY", env.PARLEY_REVERSE_PROXY);
  const ldapUrl = env.PARLEY_AUTH_LDAP_URL?.trim()
    ? parseUrl("PARLEY_AUTH_LDAP_URL", env.PARLEY_AUTH_LDAP_URL.trim(), ["ldap", "ldaps"]).href
    : undefined;
  const ldapDn = valueOf(env, "auth-ldap-dn");
  if (!/%(uid|email)/.test(ldapDn)) {
    throw new ConfigError(`PARLEY_AUTH_LDAP_DN: "${ldapDn}" names nobody: it needs %uid or %email`);
  }
  const ldapSearch = parseLdapSearch(env, valueOf(env, "auth-ldap-search-filter"));
  if (ldapSearch && !ldapUrl) {
    throw new ConfigError("PARLEY_AUTH_LDAP_SEARCH_BASE needs PARLEY_AUTH_LDAP_URL");
  }
  const { authHeader, admin, authLogoutUrl } = parseAuthHeader(env, reverseProxy, !!ldapUrl);
  const secret = env.PARLEY_SECRET || undefined;
  if (secret !== undefined && secret.length < 16) {
    throw new ConfigError("PARLEY_SECRET must be at least 16 characters");
  }
  return {
    home,
    listen,
    baseUrl,
    reverseProxy,
    authHeader,
    admin,
    authLogoutUrl,
    ldapUrl,
    ldapDn,
    ldapSearch,
    ldapCa: env.PARLEY_AUTH_LDAP_CA?.trim() || undefined,
    secret,
    maxUploadSize: parseNumber("PARLEY_MAX_UPLOAD_SIZE", valueOf(env, "max-upload-size"), 1),
    connectDelay: parseNumber("PARLEY_CONNECT_DELAY", valueOf(env, "connect-delay"), 0) * 1000,
    connectConcurrency: Math.floor(
      parseNumber("PARLEY_CONNECT_CONCURRENCY", valueOf(env, "connect-concurrency"), 1),
    ),
    logLevel: logLevel as LogLevel,
    logFormat: logFormat as LogFormat,
    ...parseMetrics(valueOf(env, "metrics")),
    defaultConnection,
    tlsCert,
    tlsKey,
    embedAllowPrivate: parseBool("PARLEY_EMBED_ALLOW_PRIVATE", env.PARLEY_EMBED_ALLOW_PRIVATE),
    ircAllowPrivate: parseBool("PARLEY_IRC_ALLOW_PRIVATE", env.PARLEY_IRC_ALLOW_PRIVATE),
    newUserConnection: parseBool("PARLEY_NEW_USER_CONNECTION", valueOf(env, "new-user-connection")),
    updateUrl: env.PARLEY_UPDATE_URL ?? "",
    databaseUrl,
    // Test-only, as PARLEY_TEST_FAST_IRC: the suite's two-node test takes over within a second.
    clusterScanMs: parseNumber(
      "PARLEY_TEST_CLUSTER_SCAN_MS",
      env.PARLEY_TEST_CLUSTER_SCAN_MS || "5000",
      100,
    ),
    ircListen,
    identdListen: parseIdentdListen(valueOf(env, "identd-listen")),
    ircTlsCert: env.PARLEY_IRC_TLS_CERT || undefined,
    ircTlsKey: env.PARLEY_IRC_TLS_KEY || undefined,
    messageRetentionDays,
    // A test-only switch, so it is not among OPTIONS (the --help list).
    ircTiming: parseBool("PARLEY_TEST_FAST_IRC", env.PARLEY_TEST_FAST_IRC)
      ? FAST_TIMING
      : DEFAULT_TIMING,
  };
}

/** PARLEY_AUTH_LDAP_SEARCH_BASE and the options of the search it turns on. */
function parseLdapSearch(
  env: Record<string, string | undefined>,
  filter: string,
): Config["ldapSearch"] {
  const base = env.PARLEY_AUTH_LDAP_SEARCH_BASE?.trim() || undefined;
  const bindDn = env.PARLEY_AUTH_LDAP_BIND_DN?.trim() || undefined;
  const bindPassword = env.PARLEY_AUTH_LDAP_BIND_PASSWORD || undefined;
  if (base === undefined) {
    if (bindDn !== undefined || bindPassword !== undefined) {
      throw new ConfigError(
        "PARLEY_AUTH_LDAP_BIND_DN is for the search: set PARLEY_AUTH_LDAP_SEARCH_BASE",
      );
    }
    return undefined;
  }
  if (!/^\(.*%email.*\)$/.test(filter)) {
    throw new ConfigError(
      `PARLEY_AUTH_LDAP_SEARCH_FILTER: "${filter}" must be a filter in parentheses naming %email`,
    );
  }
  if ((bindDn === undefined) !== (bindPassword === undefined)) {
    throw new ConfigError(
      "PARLEY_AUTH_LDAP_BIND_DN and PARLEY_AUTH_LDAP_BIND_PASSWORD go together",
    );
  }
  return { base, filter, bindDn, bindPassword };
}

/** An HTTP header's name: a token (RFC 9110). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * PARLEY_AUTH_HEADER, PARLEY_ADMIN and PARLEY_AUTH_LOGOUT_URL. The header is trusted only from a
 * proxy: anyone who can reach Parley directly could name any user in it. PARLEY_ADMIN serves the
 * LDAP login too (`ldap`).
 */
function parseAuthHeader(
  env: Record<string, string | undefined>,
  reverseProxy: boolean,
  ldap: boolean,
): Pick<Config, "authHeader" | "admin" | "authLogoutUrl"> {
  const header = env.PARLEY_AUTH_HEADER?.trim() || undefined;
  const admin = env.PARLEY_ADMIN?.trim().toLowerCase() || undefined;
  const logout = env.PARLEY_AUTH_LOGOUT_URL?.trim() || undefined;
  if (admin !== undefined && !/^[^\s@]+@[^\s@]+$/.test(admin)) {
    throw new ConfigError(`PARLEY_ADMIN: "${admin}" is not an email address`);
  }
  if (header === undefined) {
    if (admin !== undefined && !ldap) {
      throw new ConfigError("PARLEY_ADMIN needs PARLEY_AUTH_HEADER or PARLEY_AUTH_LDAP_URL");
    }
    if (logout !== undefined) {
      throw new ConfigError("PARLEY_AUTH_LOGOUT_URL needs PARLEY_AUTH_HEADER");
    }
    return { admin };
  }
  if (!HEADER_NAME.test(header)) {
    throw new ConfigError(`PARLEY_AUTH_HEADER: "${header}" is not a header name`);
  }
  if (!reverseProxy) {
    throw new ConfigError(
      "PARLEY_AUTH_HEADER needs PARLEY_REVERSE_PROXY=1: the header is trusted only from a proxy " +
        "that sets it on every request",
    );
  }
  // A path on this host (oauth2-proxy's /oauth2/sign_out), or a URL of the proxy's own.
  const authLogoutUrl = logout === undefined || /^\/(?!\/)\S*$/.test(logout)
    ? logout
    : parseUrl("PARLEY_AUTH_LOGOUT_URL", logout, ["http", "https"]).href;
  return { authHeader: header.toLowerCase(), admin, authLogoutUrl };
}

/** A file named by setting `variable` (a PEM file); one that cannot be read is a configuration error. */
export async function readSettingFile(path: string, variable: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new ConfigError(`${variable}: cannot read ${path} (${(err as Error).name})`);
  }
}

/** Variables of the test and bench harnesses, which no command reads. */
const HARNESS_VARIABLES = /^PARLEY_(?:TEST|BENCH|COMPAT)_/;
/** Variables a command reads besides the options (the store copy's target). */
const COMMAND_VARIABLES = new Set(["PARLEY_STORE_COPY_TO", "PARLEY_STORE_COPY_TO_FILE"]);

/**
 * What the daemon warns about as it starts: settings it reads that do less than they seem to,
 * and PARLEY_ variables it does not know (a typo would otherwise be ignored without a word).
 */
export function configWarnings(
  config: Pick<Config, "listen" | "ircListen">,
  env: Record<string, string | undefined>,
): string[] {
  const out: string[] = [];
  const known = new Set(
    OPTIONS.flatMap((o) => (o.secret ? [o.env, fileForm(o).env] : [o.env])),
  );
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith("PARLEY_") || known.has(name) || COMMAND_VARIABLES.has(name)) continue;
    if (HARNESS_VARIABLES.test(name)) continue;
    out.push(`${name} is not a Parley setting (misspelt?); it is ignored`);
  }
  if ((env.PARLEY_TLS_CERT || env.PARLEY_TLS_KEY) && config.listen.protocol !== "https:") {
    out.push("PARLEY_TLS_CERT and PARLEY_TLS_KEY are not used: PARLEY_LISTEN is not https://");
  }
  if (
    (env.PARLEY_IRC_TLS_CERT || env.PARLEY_IRC_TLS_KEY) && !config.ircListen.some((a) => a.tls)
  ) {
    out.push(
      "PARLEY_IRC_TLS_CERT and PARLEY_IRC_TLS_KEY are not used: PARLEY_IRC_LISTEN has no ircs://",
    );
  }
  return out;
}

/**
 * Loopback names and addresses: plain IRC listens there without asking, and a web listener there
 * answers only to its own names (http/host.ts).
 */
export const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** PARLEY_IDENTD_LISTEN: `HOST`, `HOST:PORT` or `[IPv6]:PORT`; the port is 113 unless given. */
function parseIdentdListen(value: string): Config["identdListen"] {
  const text = value.trim();
  if (!text) return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s\[\]]+))(?::(\d{1,5}))?$/.exec(text);
  const port = Number(m?.[3] ?? 113);
  if (!m || port < 1 || port > 65535) {
    throw new ConfigError(
      `PARLEY_IDENTD_LISTEN: "${text}" is not HOST or HOST:PORT (0.0.0.0:113, [::]:113)`,
    );
  }
  return { hostname: m[1] ?? m[2], port };
}

/**
 * PARLEY_IRC_LISTEN: comma-separated `ircs://HOST:PORT` (needs PARLEY_IRC_TLS_CERT and _KEY) and
 * `irc://HOST:PORT` (loopback only, unless PARLEY_IRC_LISTEN_PLAIN_ANYWHERE=1: passwords would
 * cross the network in the clear).
 */
function parseIrcListen(env: Record<string, string | undefined>): IrcListenAddress[] {
  const text = env.PARLEY_IRC_LISTEN ?? "";
  const anywhere = parseBool(
    "PARLEY_IRC_LISTEN_PLAIN_ANYWHERE",
    env.PARLEY_IRC_LISTEN_PLAIN_ANYWHERE,
  );
  const out: IrcListenAddress[] = [];
  for (const item of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const url = parseUrl("PARLEY_IRC_LISTEN", item, ["irc", "ircs"]);
    const tls = url.protocol === "ircs:";
    if (url.pathname.replace(/^\/$/, "") || url.search || url.username) {
      throw new ConfigError(`PARLEY_IRC_LISTEN: "${item}" must be only a scheme, host and port`);
    }
    if (!tls && !anywhere && !LOOPBACK.test(url.hostname)) {
      throw new ConfigError(
        `PARLEY_IRC_LISTEN: irc:// listens only on loopback (use ircs://, or set PARLEY_IRC_LISTEN_PLAIN_ANYWHERE=1)`,
      );
    }
    if (tls && (!env.PARLEY_IRC_TLS_CERT || !env.PARLEY_IRC_TLS_KEY)) {
      throw new ConfigError(
        "PARLEY_IRC_LISTEN has ircs:// but PARLEY_IRC_TLS_CERT and PARLEY_IRC_TLS_KEY are not both set",
      );
    }
    out.push({ tls, hostname: url.hostname, port: Number(url.port || (tls ? 6697 : 6667)) });
  }
  return out;
}

/** Creates the data folder and returns the secret: configured, or generated once and kept (mode 0600). */
async function prepareHome(home: string, configured?: string, write = true): Promise<string> {
  try {
    await Deno.mkdir(home, { recursive: true, mode: 0o700 });
    if (configured) {
      // Read it even so: a folder this user cannot use fails here, in one line, not later.
      for await (const _ of Deno.readDir(home)) break;
      return configured;
    }
    const path = join(home, "secret");
    try {
      const text = (await Deno.readTextFile(path)).trim();
      if (text.length >= 16) return text;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    if (!write) return "";
    const secret = randomId(32);
    await Deno.writeTextFile(path, secret + "\n", { mode: 0o600 });
    return secret;
  } catch (err) {
    throw homeError(home, err);
  }
}

/** A data folder that cannot be used, said in one line naming the variable. */
export function homeError(home: string, err: unknown): Error {
  if (err instanceof ConfigError || !(err instanceof Error)) return err as Error;
  const why = err instanceof Deno.errors.PermissionDenied
    ? `no permission for user ${userName(Deno.uid())}`
    : err instanceof Deno.errors.AlreadyExists || err instanceof Deno.errors.NotADirectory
    ? "it is not a folder"
    : err.message;
  return new ConfigError(`PARLEY_HOME: cannot use the data folder ${home} (${why})`);
}

/** A user's name from /etc/passwd, else "uid N". */
function userName(uid: number | null): string {
  try {
    for (const line of Deno.readTextFileSync("/etc/passwd").split("\n")) {
      const [name, , id] = line.split(":");
      if (Number(id) === uid && name) return `${name} (uid ${uid})`;
    }
  } catch { /* why: no /etc/passwd: the number names the user well enough */ }
  return `uid ${uid}`;
}

/**
 * Root in a data folder another user owns would leave files there (the secret, the database's
 * journal, the lock) that the daemon, running as that user, then cannot open. Deno cannot drop
 * privileges itself, so the command is refused with who to run it as.
 */
export async function refuseRootInOthersHome(home: string): Promise<void> {
  if (Deno.uid() !== 0) return;
  let owner: number | null;
  try {
    owner = (await Deno.stat(home)).uid;
  } catch {
    return; // Missing: made by this command, so root's own. Unreadable: prepareHome says so.
  }
  if (owner === null || owner === 0) return;
  const name = userName(owner);
  const as = /^(\S+) \(uid/.exec(name)?.[1] ?? `#${owner}`;
  throw new ConfigError(
    `the data folder ${home} belongs to ${name}; running as root would leave root-owned ` +
      `files in it, so run this as that user (sudo -u ${as} parley ...)`,
  );
}

/** Reads the environment, flags and secret files, prepares the data folder, returns the Config. */
export async function loadConfig(
  args: string[],
  env = Deno.env.toObject(),
  /**
   * A command, not a node: on PostgreSQL the secret is the nodes' (the database keeps its
   * fingerprint), so a data folder without one gets none written, and the secret is "" (which a
   * command that signs refuses).
   */
  opts: { command?: boolean } = {},
): Promise<Config> {
  const partial = parseConfig(await readSecretFiles({ ...env, ...flagsToEnv(args) }));
  await refuseRootInOthersHome(partial.home);
  const write = !(opts.command && partial.databaseUrl);
  const secret = await prepareHome(partial.home, partial.secret, write);
  return { ...partial, secret };
}
