/**
 * `parley restore FILE`: a backup into an empty data folder. The archive is read twice: once to
 * check every entry and add up what it would write (refusing a name outside the data folder,
 * anything but files and folders, and more than the disk or a sane expansion allows), then to
 * write it into a folder of its own inside the data folder, moved into place only once the
 * database has passed its check. A refusal or a failure leaves the data folder as it was.
 */
import { join } from "node:path";
import { statfs } from "node:fs/promises";
import { DatabaseSync } from "node:sqlite";
import { createTarDecoder, type ParsedTarEntry } from "modern-tar";
import {
  ConfigError,
  parseCommandLine,
  parseConfig,
  readSecretFiles,
  refuseRootInOthersHome,
} from "../config.ts";
import { logToStderr } from "../lib/log.ts";
import { removeLeftover } from "../lib/remove.ts";
import { LOCK_FILE, lockHome } from "./home.ts";
import { RESTORE_USAGE } from "./help.ts";
import { DATABASE, FILES_DIR, KEPT_FILES, MANIFEST } from "./backup_layout.ts";

/** How many times its compressed size a backup may expand to, unless --max-size says otherwise. */
export const EXPANSION_RATIO = 50;
/** Small backups may always expand this far (a fresh database compresses very well). */
export const EXPANSION_FLOOR = 64 * 1024 * 1024;
/** Left free on the data folder's file system after a restore, for the daemon to start. */
export const FREE_SPACE_MARGIN = 64 * 1024 * 1024;
/** What one entry costs beside its contents: its header (and a folder's or empty file's inode). */
const ENTRY_COST = 512;
/** Where the entries are written before they are moved into place. */
const STAGING_PREFIX = ".parley-restore-";

/** A safe relative path inside the data folder, or an error naming the entry. */
function safeName(name: string): string {
  const parts = name.split("/");
  const allowed = parts[0] === FILES_DIR || [MANIFEST, DATABASE, ...KEPT_FILES].includes(name);
  if (
    !allowed || name.startsWith("/") || name.includes("\\") || name.includes("\0") ||
    parts.some((p) => p === "" || p === "." || p === "..")
  ) {
    throw new ConfigError(`the backup holds "${name}", which is not part of a Parley data folder`);
  }
  return name;
}

/** The entries of the archive at `path`, decompressed and decoded as they stream in. */
async function* entries(
  path: string,
  source: string,
): AsyncGenerator<ParsedTarEntry & { name: string }> {
  let input: Deno.FsFile;
  try {
    input = await Deno.open(path);
  } catch (err) {
    throw new ConfigError(`cannot read ${source}: ${(err as Error).message}`);
  }
  // Stopping early (a refusal) must stop the reading and decompressing too, not only the
  // decoding: the rest of a hostile archive is never inflated.
  const stop = new AbortController();
  const stream = input.readable
    .pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(createTarDecoder({ strict: true }), { signal: stop.signal });
  let first = true;
  try {
    for await (const entry of stream) {
      const name = safeName(entry.header.name.replace(/\/+$/, ""));
      if (first && name !== MANIFEST) {
        throw new ConfigError(
          `${source} is not a Parley backup (it does not start with ${MANIFEST})`,
        );
      }
      first = false;
      const type = entry.header.type ?? "file";
      if (type !== "file" && type !== "directory") {
        throw new ConfigError(`the backup holds "${name}", which is not a file or a folder`);
      }
      yield { ...entry, name };
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    // What `parley backup` writes is gzip: anything else fails in the decompressor first.
    const notGzip = first && /gzip|header|deflate/i.test((err as Error).message);
    throw new ConfigError(
      notGzip
        ? `${source} is not a Parley backup (not a .tar.gz that parley backup writes)`
        : `cannot restore ${source}: ${(err as Error).message}`,
    );
  } finally {
    stop.abort();
  }
  if (first) throw new ConfigError(`cannot restore ${source}: it holds nothing`);
}

/** The space a restore may use: what the disk has, and what a backup of this size may expand to. */
async function limits(home: string, compressed: number, maxSize?: number) {
  const fs = await statfs(home);
  const free = Number(fs.bavail) * Number(fs.bsize) - FREE_SPACE_MARGIN;
  const expansion = maxSize ?? Math.max(compressed * EXPANSION_RATIO, EXPANSION_FLOOR);
  return { free, expansion };
}

/** Reads the whole archive without writing: its size once written, or a refusal. */
async function survey(
  path: string,
  source: string,
  bound: { free: number; expansion: number },
): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  let sawDb = false;
  const seen = new Set<string>();
  for await (const e of entries(path, source)) {
    if (seen.has(e.name)) throw new ConfigError(`the backup holds "${e.name}" twice`);
    seen.add(e.name);
    // The header's size is what the body holds (the decoder reads exactly that much), so a
    // hostile archive is refused at the header that makes it too large, before its contents
    // are even decompressed.
    bytes += ENTRY_COST + e.header.size;
    tooLarge(bytes, bound, source);
    if (e.name === DATABASE) sawDb = true;
    if (e.name.startsWith(`${FILES_DIR}/`) && e.header.type !== "directory") files++;
    await e.body.cancel();
  }
  if (!sawDb) throw new ConfigError(`${source} holds no database (${DATABASE})`);
  return { bytes, files };
}

function tooLarge(bytes: number, bound: { free: number; expansion: number }, source: string) {
  const mb = (n: number) => `${Math.max(0, Math.round(n / 1e6))} MB`;
  if (bytes > bound.expansion) {
    throw new ConfigError(
      `${source} would expand to more than ${mb(bound.expansion)} (a backup may expand to ` +
        `${EXPANSION_RATIO} times its size, and at least to ${mb(EXPANSION_FLOOR)}); nothing ` +
        `was written. If the backup is genuine, pass --max-size BYTES`,
    );
  }
  if (bytes > bound.free) {
    throw new ConfigError(
      `${source} would need more than the ${mb(bound.free)} free on the data folder's file ` +
        `system (keeping ${mb(FREE_SPACE_MARGIN)} spare); nothing was written`,
    );
  }
}

/**
 * What a data folder may hold and still count as empty: the lock, and dotfiles a backup never
 * holds (the skeleton `useradd --create-home` copies: .bashrc, .profile), which are left alone.
 * A staging folder an interrupted restore left is in the way, not ignored.
 */
function ignored(name: string): boolean {
  return name === LOCK_FILE || (name.startsWith(".") && !name.startsWith(STAGING_PREFIX));
}

/** Runs `parley restore FILE`. */
export async function restoreCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args, [{ name: "max-size" }]);
  if (parsed.help) return console.log(RESTORE_USAGE);
  const [source, ...extra] = parsed.positional;
  if (!source || extra.length) throw new ConfigError(`one FILE is needed\n\n${RESTORE_USAGE}`);
  const maxText = parsed.options.get("max-size")?.at(-1);
  const maxSize = maxText === undefined ? undefined : Number(maxText);
  if (maxSize !== undefined && !(Number.isSafeInteger(maxSize) && maxSize > 0)) {
    throw new ConfigError(`--max-size takes a number of bytes, not "${maxText}"`);
  }
  logToStderr();
  const config = parseConfig(await readSecretFiles({ ...Deno.env.toObject(), ...parsed.env }));
  if (config.databaseUrl) {
    throw new ConfigError(
      "PARLEY_DATABASE_URL is set: the store is PostgreSQL; restore it with pg_restore, or " +
        "restore into a data folder without PARLEY_DATABASE_URL and `parley store copy` it",
    );
  }
  const home = config.home;
  await refuseRootInOthersHome(home);
  let compressed: number;
  try {
    compressed = (await Deno.stat(source)).size;
  } catch (err) {
    throw new ConfigError(`cannot read ${source}: ${(err as Error).message}`);
  }
  await Deno.mkdir(home, { recursive: true, mode: 0o700 });
  const inTheWay = [];
  for await (const e of Deno.readDir(home)) if (!ignored(e.name)) inTheWay.push(e.name);
  if (inTheWay.length) {
    const names = inTheWay.sort().slice(0, 5).join(", ") + (inTheWay.length > 5 ? ", ..." : "");
    throw new ConfigError(
      `${home} is not empty (${names}); restore into an empty data folder (set PARLEY_HOME or --home)`,
    );
  }
  const lock = await lockHome(home, "restoring");
  let staging: string | undefined;
  try {
    const bound = await limits(home, compressed, maxSize);
    const planned = await survey(source, source, bound);
    staging = await Deno.makeTempDir({ dir: home, prefix: STAGING_PREFIX });
    await extract(source, staging, planned.bytes);
    checkDatabase(join(staging, DATABASE), source);
    // Same file system (the staging folder is inside the data folder): each move is a rename.
    for await (const e of Deno.readDir(staging)) {
      await Deno.rename(join(staging, e.name), join(home, e.name));
    }
    console.log(
      `restored ${source} into ${home} (database and ${planned.files} uploaded files)`,
    );
  } catch (err) {
    // Only the staging folder was written; take back anything already moved too, so that a
    // retry starts from the empty folder it found.
    for await (const e of Deno.readDir(home)) {
      if (!ignored(e.name)) await Deno.remove(join(home, e.name), { recursive: true });
    }
    throw err;
  } finally {
    if (staging) await removeLeftover(staging, { recursive: true });
    lock.close();
  }
}

/** Writes the archive's entries under `dir`, never more than the survey counted. */
async function extract(source: string, dir: string, planned: number): Promise<void> {
  let bytes = 0;
  for await (const e of entries(source, source)) {
    bytes += ENTRY_COST;
    if (e.name === MANIFEST) {
      await drain(e.body);
      continue;
    }
    const path = join(dir, ...e.name.split("/"));
    if (e.header.type === "directory") {
      await drain(e.body);
      await Deno.mkdir(path, { recursive: true, mode: 0o700 });
      continue;
    }
    await Deno.mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    const writer = file.writable.getWriter();
    try {
      for await (const chunk of e.body) {
        bytes += chunk.length;
        // The archive changed since the survey: stop rather than write what was not counted.
        if (bytes > planned) throw new ConfigError(`${source} changed while it was restored`);
        await writer.write(chunk);
      }
      await writer.close();
    } catch (err) {
      // why: the error that stopped the copy is thrown below; the abort only closes the file.
      await writer.abort().catch(() => {});
      throw err;
    }
  }
}

/**
 * Reads a body to its end. Cancelling it would do, but the decoder then stalls on the next
 * entry's body; skipping with cancel() is kept to the survey, which reads no body at all.
 */
async function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  for await (const _ of body) { /* the survey counted it */ }
}

/** SQLite's own check of the restored database. */
function checkDatabase(path: string, source: string): void {
  const db = new DatabaseSync(path);
  try {
    const check = db.prepare("PRAGMA quick_check").get() as { quick_check: string };
    if (check.quick_check !== "ok") {
      throw new ConfigError(`the database in ${source} is damaged: ${check.quick_check}`);
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`the database in ${source} is damaged: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}
