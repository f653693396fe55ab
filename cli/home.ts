/** The data folder as the commands see it: its configuration, and the lock one daemon holds. */
import { join } from "node:path";
import { type Config, ConfigError, loadConfig, parseConfig } from "../config.ts";
import { configureLog, logToStderr } from "../lib/log.ts";

/** The lock file's name in the data folder. */
export const LOCK_FILE = "parley.lock";

/** Whether `path` exists as a folder. */
export async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * The configuration of a command other than the daemon: logs go to stderr (stdout is the
 * command's output), and a data folder that does not exist is an error rather than a new empty
 * installation (a mistyped PARLEY_HOME must not look like "no users").
 */
export async function commandConfig(flags: Record<string, string>): Promise<Config> {
  logToStderr();
  const env = { ...Deno.env.toObject(), ...flags };
  const home = parseConfig(env).home;
  if (!(await isDir(home))) {
    throw new ConfigError(
      `the data folder ${home} does not exist (set PARLEY_HOME or pass --home)`,
    );
  }
  const config = await loadConfig([], env, { command: true });
  configureLog(config, Deno.env.get("JOURNAL_STREAM"));
  return config;
}

/**
 * Said (on stderr) beside links a command prints when PARLEY_BASE_URL is not given: they then
 * start with the listen URL, which is rarely the address people use (a reverse proxy's).
 */
export function baseUrlNote(config: Config, flags: Record<string, string>): string | undefined {
  if (flags.PARLEY_BASE_URL || Deno.env.get("PARLEY_BASE_URL")) return undefined;
  return `note: PARLEY_BASE_URL is not set, so links start with ${config.baseUrl.href} ` +
    "(the listen URL); give the URL people use, as the daemon has it: " +
    "PARLEY_BASE_URL=https://chat.example.org or --base-url https://chat.example.org";
}

/**
 * Takes the data folder's lock, held until the process ends (the OS releases it if the process
 * dies). One daemon per folder: a second one, or an import or restore beside a running daemon,
 * would write the same database behind its back.
 */
export async function lockHome(home: string, what: string): Promise<Deno.FsFile> {
  const path = join(home, LOCK_FILE);
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  if (!(await file.tryLock(true))) {
    file.close();
    throw new ConfigError(
      `another Parley is running on ${home} (${path} is locked); stop it before ${what}`,
    );
  }
  await file.truncate();
  await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  return file;
}

/**
 * Commands that work on the data folder's SQLite database refuse a PostgreSQL store instead of
 * quietly working on a database the daemon does not use.
 */
export function refuseOnPostgres(config: Config, instead: string): void {
  if (config.databaseUrl) {
    throw new ConfigError(`PARLEY_DATABASE_URL is set: the store is PostgreSQL; ${instead}`);
  }
}

/**
 * A database a command cannot use, in one line as the daemon says it, not a client's stack:
 * `what` names where the URL came from (PARLEY_DATABASE_URL, --to-file), and the line names the
 * database and the problem, never the URL's password. Other errors are returned as they are.
 */
export function databaseError(what: string, databaseUrl: string, err: unknown): unknown {
  if (err instanceof ConfigError || !(err instanceof Error)) return err;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return err;
  }
  const host = url.hostname || url.searchParams.get("host") || "localhost";
  const where = `${host}:${url.port || 5432}`;
  const role = decodeURIComponent(url.username);
  // Without a name in the URL, PostgreSQL's clients use the role's.
  const name = decodeURIComponent(url.pathname.slice(1)) || role;
  const code = (err as { code?: string }).code ?? "";
  const reasons: Record<string, string> = {
    ECONNREFUSED: `nothing accepts connections at ${where}`,
    ENOTFOUND: `no such host ${host}`,
    EAI_AGAIN: `${host} cannot be resolved`,
    ETIMEDOUT: `${where} does not answer`,
    EHOSTUNREACH: `${where} is unreachable`,
    CONNECT_TIMEOUT: `${where} does not answer`,
    "28P01": `the password of role "${role}" was refused`,
    "28000": `the role "${role}" may not log in`,
    "3D000": `no database "${name}" at ${where}`,
  };
  const reason = reasons[code] ??
    (err instanceof Deno.errors.ConnectionRefused ? reasons.ECONNREFUSED : undefined);
  if (reason) return new ConfigError(`${what}: cannot connect (${reason})`);
  // Any other refusal of the server (a missing privilege, a full disk): its words, on one line.
  if (err.name === "PostgresError") {
    return new ConfigError(`${what}: the database "${name}" at ${where} refused: ${err.message}`);
  }
  return err;
}
