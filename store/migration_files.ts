/** Numbered SQL migration files (`NNN_name.sql`), which every backend applies in order. */
import { ConfigError } from "../config.ts";
import { log } from "../lib/log.ts";

/** One migration file: `NNN_name.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migration files of a folder, ordered by their number. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const out: Migration[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const m = /^(\d+)_([\w-]+)\.sql$/.exec(entry.name);
    if (!entry.isFile || !m) continue;
    out.push({
      version: Number(m[1]),
      name: m[2],
      sql: await Deno.readTextFile(`${dir}/${entry.name}`),
    });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++) {
    if (out[i].version === out[i - 1].version) {
      throw new Error(`two migrations numbered ${out[i].version}`);
    }
  }
  return out;
}

/**
 * Refuses a database whose schema is newer than the newest migration this binary has: a newer
 * Parley migrated it, and this one would misread what it changed. A ConfigError: the command
 * stops with one line and exit code 2.
 */
export function refuseNewer(stored: number, migrations: Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  if (stored > known) {
    throw new ConfigError(
      `the database's schema is version ${stored}, newer than this Parley's (${known}): ` +
        `a newer Parley migrated it; run that version (or newer), or restore a backup`,
    );
  }
}

/** Logs the migrations a start applied: `migrated store 7 -> 9 in 1.2 s`. */
export function logMigrated(from: number, applied: number[], ms: number): void {
  if (!applied.length) return;
  log.info(`migrated store ${from} -> ${applied.at(-1)} in ${(ms / 1000).toFixed(1)} s`);
}
