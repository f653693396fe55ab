/** Configuration: environment variables and `parley daemon` flags, validated into one typed Config. */
import { join, resolve } from "node:path";
import type { LogLevel } from "./lib/log.ts";
import { randomId } from "./lib/crypto.ts";
import { DEFAULT_TIMING, FAST_TIMING, type IrcTiming } from "./irc/engine/timing.ts";

/** Everything the daemon needs to know at start. */
export interface Config {
  /** Data folder: database, files, secret, bot.json. */
  home: string;
  /** Where to listen, e.g. http://127.0.0.1:3000. */
  listen: URL;
  /** External URL used in links (invites, files); defaults to `listen`. */
  baseUrl: URL;
  reverseProxy: boolean;
  secret: string;
  maxUploadSize: number;
  /** Milliseconds between two connects to the same IRC host. */
  connectDelay: number;
  logLevel: LogLevel;
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
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {}

interface Option {
  env: string;
  flag: string;
  help: string;
}

/** Every option, in the order `parley daemon --help` lists them. */
export const OPTIONS: Option[] = [
  { env: "PARLEY_HOME", flag: "home", help: "data folder (default ./local/parley)" },
  { env: "PARLEY_LISTEN", flag: "listen", help: "listen URL (default http://127.0.0.1:3000)" },
  { env: "PARLEY_BASE_URL", flag: "base-url", help: "external URL used in links" },
  { env: "PARLEY_REVERSE_PROXY", flag: "reverse-proxy", help: "trust X-Forwarded-* headers (0/1)" },
  {
    env: "PARLEY_SECRET",
    flag: "secret",
    help: "server secret (else generated in the data folder)",
  },
  { env: "PARLEY_TLS_CERT", flag: "tls-cert", help: "TLS certificate file for https:// listen" },
  { env: "PARLEY_TLS_KEY", flag: "tls-key", help: "TLS key file for https:// listen" },
  {
    env: "PARLEY_MAX_UPLOAD_SIZE",
    flag: "max-upload-size",
    help: "upload limit in bytes (default 40000000)",
  },
  {
    env: "PARLEY_CONNECT_DELAY",
    flag: "connect-delay",
    help: "seconds between connects to one host (default 4)",
  },
  { env: "PARLEY_LOG_LEVEL", flag: "log-level", help: "debug, info, warn or error (default info)" },
  {
    env: "PARLEY_DEFAULT_CONNECTION",
    flag: "default-connection",
    help: "default IRC URL for new users",
  },
  {
    env: "PARLEY_EMBED_ALLOW_PRIVATE",
    flag: "embed-allow-private",
    help: "let embed fetch private addresses (0/1)",
  },
  {
    env: "PARLEY_IRC_ALLOW_PRIVATE",
    flag: "irc-allow-private",
    help: "let every user connect to private IRC servers (0/1)",
  },
  {
    env: "PARLEY_NEW_USER_CONNECTION",
    flag: "new-user-connection",
    help: "give each new user the default connection (0/1, default 1)",
  },
  {
    env: "PARLEY_UPDATE_URL",
    flag: "update-url",
    help: "URL asked for the newest version (empty: off)",
  },
  {
    env: "PARLEY_DATABASE_URL",
    flag: "database-url",
    help: "postgres:// URL: store everything in PostgreSQL (default: SQLite in the data folder)",
  },
];

/** The default URL offered to new users when nothing else is configured. */
export const DEFAULT_CONNECTION = "ircs://irc.libera.chat:6697/%23parley";

function parseBool(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "") return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be 0 or 1, not "${value}"`);
}

function parseNumber(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
): number {
  if (value === undefined || value === "") return fallback;
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
    // A database URL holds a password: the message must not repeat it.
    throw new ConfigError(`${name} must be a URL${secret ? "" : `, not "${value}"`}`);
  }
  if (!schemes.includes(url.protocol.slice(0, -1))) {
    throw new ConfigError(`${name} must start with ${schemes.map((s) => s + "://").join(" or ")}`);
  }
  return url;
}

/** Reads `--flag value` and `--flag=value` pairs into a map keyed by environment name. */
export function flagsToEnv(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument "${arg}"`);
    const [flag, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const opt = OPTIONS.find((o) => o.flag === flag);
    if (!opt) throw new ConfigError(`unknown flag --${flag}`);
    const value = inline ?? args[++i];
    if (value === undefined) throw new ConfigError(`--${flag} needs a value`);
    out[opt.env] = value;
  }
  return out;
}

/** Builds a Config from environment values (flags already merged in). Pure: touches no files. */
export function parseConfig(
  env: Record<string, string | undefined>,
): Omit<Config, "secret"> & { secret?: string } {
  const home = resolve(env.PARLEY_HOME || "./local/parley");
  const listen = parseUrl("PARLEY_LISTEN", env.PARLEY_LISTEN || "http://127.0.0.1:3000", [
    "http",
    "https",
  ]);
  if (!listen.port) listen.port = listen.protocol === "https:" ? "443" : "80";
  const baseUrl = env.PARLEY_BASE_URL
    ? parseUrl("PARLEY_BASE_URL", env.PARLEY_BASE_URL, ["http", "https"])
    : new URL(listen.href);
  const tlsCert = env.PARLEY_TLS_CERT || undefined;
  const tlsKey = env.PARLEY_TLS_KEY || undefined;
  if (listen.protocol === "https:" && (!tlsCert || !tlsKey)) {
    throw new ConfigError(
      "PARLEY_LISTEN is https:// but PARLEY_TLS_CERT and PARLEY_TLS_KEY are not both set",
    );
  }
  const logLevel = (env.PARLEY_LOG_LEVEL || "info").toLowerCase();
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    throw new ConfigError(`PARLEY_LOG_LEVEL must be debug, info, warn or error, not "${logLevel}"`);
  }
  const defaultConnection = env.PARLEY_DEFAULT_CONNECTION || DEFAULT_CONNECTION;
  parseUrl("PARLEY_DEFAULT_CONNECTION", defaultConnection, ["irc", "ircs"]);
  const databaseUrl = env.PARLEY_DATABASE_URL || undefined;
  if (databaseUrl !== undefined) {
    const url = parseUrl("PARLEY_DATABASE_URL", databaseUrl, ["postgres", "postgresql"], true);
    if (!url.hostname && !url.searchParams.get("host")) {
      throw new ConfigError("PARLEY_DATABASE_URL names no host");
    }
  }
  const secret = env.PARLEY_SECRET || undefined;
  if (secret !== undefined && secret.length < 16) {
    throw new ConfigError("PARLEY_SECRET must be at least 16 characters");
  }
  return {
    home,
    listen,
    baseUrl,
    reverseProxy: parseBool("PARLEY_REVERSE_PROXY", env.PARLEY_REVERSE_PROXY),
    secret,
    maxUploadSize: parseNumber("PARLEY_MAX_UPLOAD_SIZE", env.PARLEY_MAX_UPLOAD_SIZE, 40_000_000, 1),
    connectDelay: parseNumber("PARLEY_CONNECT_DELAY", env.PARLEY_CONNECT_DELAY, 4, 0) * 1000,
    logLevel: logLevel as LogLevel,
    defaultConnection,
    tlsCert,
    tlsKey,
    embedAllowPrivate: parseBool("PARLEY_EMBED_ALLOW_PRIVATE", env.PARLEY_EMBED_ALLOW_PRIVATE),
    ircAllowPrivate: parseBool("PARLEY_IRC_ALLOW_PRIVATE", env.PARLEY_IRC_ALLOW_PRIVATE),
    newUserConnection: (env.PARLEY_NEW_USER_CONNECTION ?? "") === "" ||
      parseBool("PARLEY_NEW_USER_CONNECTION", env.PARLEY_NEW_USER_CONNECTION),
    updateUrl: env.PARLEY_UPDATE_URL ?? "",
    databaseUrl,
    // Test-only, as PARLEY_TEST_FAST_IRC: the suite's two-node test takes over within a second.
    clusterScanMs: parseNumber(
      "PARLEY_TEST_CLUSTER_SCAN_MS",
      env.PARLEY_TEST_CLUSTER_SCAN_MS,
      5000,
      100,
    ),
    // A test-only switch, so it is not among OPTIONS (the --help list).
    ircTiming: parseBool("PARLEY_TEST_FAST_IRC", env.PARLEY_TEST_FAST_IRC)
      ? FAST_TIMING
      : DEFAULT_TIMING,
  };
}

/** Creates the data folder and returns the secret: configured, or generated once and kept (mode 0600). */
export async function prepareHome(home: string, configured?: string): Promise<string> {
  await Deno.mkdir(home, { recursive: true, mode: 0o700 });
  if (configured) return configured;
  const path = join(home, "secret");
  try {
    const text = (await Deno.readTextFile(path)).trim();
    if (text.length >= 16) return text;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const secret = randomId(32);
  await Deno.writeTextFile(path, secret + "\n", { mode: 0o600 });
  return secret;
}

/** Reads the environment and flags, prepares the data folder, and returns the full Config. */
export async function loadConfig(args: string[], env = Deno.env.toObject()): Promise<Config> {
  const partial = parseConfig({ ...env, ...flagsToEnv(args) });
  const secret = await prepareHome(partial.home, partial.secret);
  return { ...partial, secret };
}
