/** `parley store copy --to postgres://...`: moves a SQLite installation into PostgreSQL. */
import { ConfigError } from "../config.ts";
import { storeBackend } from "../store/mod.ts";
import { DomainError } from "../lib/errors.ts";
import { parseArgs } from "./args.ts";
import { commandConfig, lockHome } from "./home.ts";
import { STORE_USAGE } from "./help.ts";

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.href;
  } catch {
    return "(not a URL)";
  }
}

/** Runs `parley store ...`. */
export async function storeCommand(args: string[]): Promise<void> {
  const parsed = parseArgs(args, ["to"]);
  if (parsed.help) return console.log(STORE_USAGE);
  const [sub, ...extra] = parsed.positional;
  if (sub !== "copy" || extra.length) throw new ConfigError(`what to do?\n\n${STORE_USAGE}`);
  const to = parsed.options.get("to")?.at(-1);
  if (!to || !/^postgres(ql)?:\/\//.test(to)) {
    throw new ConfigError(`--to takes a postgres:// URL\n\n${STORE_USAGE}`);
  }
  const config = await commandConfig(parsed.env);
  if (config.databaseUrl) {
    throw new ConfigError("unset PARLEY_DATABASE_URL: the copy reads the data folder's SQLite");
  }
  const from = await storeBackend(config.databaseUrl);
  const into = await storeBackend(to);
  if (!from.copySource || !into.copyInto) {
    throw new ConfigError(`a ${from.name} store cannot be copied into ${into.name}`);
  }
  // The daemon must not write the database while it is copied.
  const lock = await lockHome(config.home, "copying the store");
  const source = from.copySource(config.home);
  try {
    const started = performance.now();
    let last = 0;
    const report = await into.copyInto(to, source, (table, rows) => {
      if (performance.now() - last < 2000) return;
      last = performance.now();
      console.error(`${table}: ${rows} rows`);
    });
    for (const t of report.tables) {
      console.log(`${t.table}\t${t.source}\t${t.target}`);
    }
    if (report.missing.length) {
      console.error(
        `${report.missing.length} files had no contents on disk (kept empty): ` +
          report.missing.slice(0, 10).join(" "),
      );
    }
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `copied ${config.home} to ${redactUrl(to)} in ${secs} s; every count matches.\n` +
        `Start Parley with PARLEY_DATABASE_URL set to that URL (see docs/deployment.md).`,
    );
  } catch (err) {
    if (err instanceof DomainError) throw new ConfigError(err.message);
    throw err;
  } finally {
    source.close();
    lock.close();
  }
}
