/** `parley store copy --to postgres://...`: moves a SQLite installation into PostgreSQL. */
import { ConfigError, parseCommandLine, readSecretFile } from "../config.ts";
import { storeBackend } from "../store/mod.ts";
import { BACKENDS } from "../store/backends.ts";
import { DomainError } from "../lib/errors.ts";
import { commandConfig, databaseError, lockHome } from "./home.ts";
import { STORE_USAGE } from "./help.ts";
import { join } from "node:path";
import { VAPID_FILE } from "../push/vapid.ts";

/**
 * The URL without its password, for messages.
 *
 * @internal test seam
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.href;
  } catch {
    return "(not a URL)";
  }
}

/** The variable naming a file that holds the target URL (its password stays off the command line). */
export const COPY_TO_FILE = "PARLEY_STORE_COPY_TO_FILE";
/** The variable holding the target URL itself. */
export const COPY_TO = "PARLEY_STORE_COPY_TO";

/**
 * Where to copy to: `--to-file FILE`, then the environment, then `--to URL` (kept working,
 * though a URL with a password there is visible to every local user in the process list).
 */
async function targetUrl(
  options: Map<string, string[]>,
): Promise<{ url?: string; from: string }> {
  const given = [options.has("to-file"), !!Deno.env.get(COPY_TO_FILE), !!Deno.env.get(COPY_TO)]
    .filter(Boolean).length + (options.has("to") ? 1 : 0);
  if (given > 1) {
    throw new ConfigError(`give the target once: --to-file, ${COPY_TO_FILE}, ${COPY_TO} or --to`);
  }
  const file = options.get("to-file")?.at(-1) ?? Deno.env.get(COPY_TO_FILE);
  if (file) {
    const from = options.has("to-file") ? "--to-file" : COPY_TO_FILE;
    return { url: await readSecretFile(file, from), from };
  }
  if (Deno.env.get(COPY_TO)) return { url: Deno.env.get(COPY_TO), from: COPY_TO };
  return { url: options.get("to")?.at(-1), from: "--to" };
}

/**
 * What every further node needs beside the URL: the installation's secret (a node with another
 * refuses to start) and its Web Push keys (the subscriptions are tied to them), as this data
 * folder holds them.
 */
async function furtherNodes(home: string, env: Record<string, string>): Promise<string> {
  const vapid = join(home, VAPID_FILE);
  const keys = await Deno.stat(vapid).then(() => vapid, () => `the first node's ${VAPID_FILE}`);
  const secret = env.PARLEY_SECRET || env.PARLEY_SECRET_FILE
    ? `the same PARLEY_SECRET, and a copy of ${keys} in its PARLEY_HOME`
    : `copies of ${join(home, "secret")} and ${keys} in its PARLEY_HOME`;
  return `Every further node needs ${secret} (and of bot.json if the bot runs): without the ` +
    "secret it refuses to start, and without the keys its pushes fail (docs/deployment.md, " +
    '"Two nodes behind nginx").';
}

/** Runs `parley store ...`. */
export async function storeCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args, [{ name: "to" }, { name: "to-file" }]);
  if (parsed.help) return console.log(STORE_USAGE);
  const [sub, ...extra] = parsed.positional;
  if (sub !== "copy" || extra.length) throw new ConfigError(`what to do?\n\n${STORE_USAGE}`);
  const { url: to, from: toFrom } = await targetUrl(parsed.options);
  // The schemes of the backends a store can be copied into.
  const targets = BACKENDS.filter((b) => b.offers.copyTo).flatMap((b) => b.schemes);
  if (!to || !targets.some((s) => to.toLowerCase().startsWith(`${s}://`))) {
    throw new ConfigError(
      `--to-file, ${COPY_TO_FILE} or --to give a ${targets[0]}:// URL\n\n${STORE_USAGE}`,
    );
  }
  const config = await commandConfig(parsed.env);
  if (config.databaseUrl) {
    throw new ConfigError("unset PARLEY_DATABASE_URL: the copy reads the data folder's SQLite");
  }
  const from = await storeBackend(); // the data folder's SQLite
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
        `Start Parley with PARLEY_DATABASE_URL set to that URL (see docs/deployment.md).\n` +
        await furtherNodes(config.home, { ...Deno.env.toObject(), ...parsed.env }),
    );
  } catch (err) {
    if (err instanceof DomainError) throw new ConfigError(err.message);
    throw databaseError(toFrom, to, err);
  } finally {
    source.close();
    lock.close();
  }
}
