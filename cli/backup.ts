/** `parley backup FILE` and `parley restore FILE`: the data folder as one .tar.gz. */
import { basename, dirname, join, resolve } from "node:path";
import { backup, DatabaseSync } from "node:sqlite";
import { ConfigError, parseCommandLine, parseConfig, readSecretFiles } from "../config.ts";
import { logToStderr } from "../lib/log.ts";
import { commandConfig, isDir, LOCK_FILE, lockHome, refuseOnPostgres } from "./home.ts";
import { BACKUP_USAGE, RESTORE_USAGE, VERSION } from "./help.ts";
import { END, header, padding, readTar, type TarEntry } from "./tar.ts";

/** The first entry of every backup: what wrote it, and what it leaves out. */
const MANIFEST = "parley-backup.json";
/** Everything of the data folder a backup holds besides the database. */
const KEPT_FILES = ["secret", "bot.json"];
const FILES_DIR = "files";

interface Source {
  entry: TarEntry;
  /** Where the contents come from; none for folders and the manifest. */
  path?: string;
  bytes?: Uint8Array<ArrayBuffer>;
}

/** Every file and folder under `dir` (relative names with `/`), folders before their contents. */
async function* walk(dir: string, prefix: string): AsyncGenerator<Source> {
  const names: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e);
  names.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of names) {
    const path = join(dir, e.name);
    const name = `${prefix}/${e.name}`;
    const info = await Deno.stat(path);
    const mtime = Math.floor((info.mtime?.getTime() ?? Date.now()) / 1000);
    if (info.isDirectory) {
      yield { entry: { name, type: "dir", size: 0, mode: 0o700, mtime } };
      yield* walk(path, name);
    } else if (info.isFile) {
      yield { entry: { name, type: "file", size: info.size, mode: 0o600, mtime }, path };
    }
  }
}

async function fileSource(path: string, name: string): Promise<Source | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return undefined;
    const mtime = Math.floor((info.mtime?.getTime() ?? Date.now()) / 1000);
    return { entry: { name, type: "file", size: info.size, mode: 0o600, mtime }, path };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** The archive's bytes, entry by entry, each file streamed from disk. */
async function* archive(
  sources: AsyncIterable<Source>,
): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  for await (const s of sources) {
    yield header(s.entry);
    if (s.entry.type === "dir") continue;
    let written = 0;
    if (s.bytes) {
      yield s.bytes;
      written = s.bytes.length;
    } else {
      using file = await Deno.open(s.path!);
      // Exactly the size in the header: a file growing meanwhile must not break the archive.
      for await (const chunk of file.readable) {
        const part = chunk.subarray(0, s.entry.size - written);
        written += part.length;
        if (part.length) yield part;
        if (written >= s.entry.size) break;
      }
    }
    if (written < s.entry.size) yield new Uint8Array(s.entry.size - written);
    yield padding(s.entry.size);
  }
  yield END;
}

/** Runs `parley backup FILE`. */
export async function backupCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args);
  if (parsed.help) return console.log(BACKUP_USAGE);
  const [target, ...extra] = parsed.positional;
  if (!target || extra.length) throw new ConfigError(`one FILE is needed\n\n${BACKUP_USAGE}`);
  const config = await commandConfig(parsed.env);
  refuseOnPostgres(config, "back it up with pg_dump (docs/deployment.md)");
  const dbPath = join(config.home, "parley.db");
  if (!(await fileSource(dbPath, "parley.db"))) {
    throw new ConfigError(`${config.home} holds no Parley database (parley.db)`);
  }
  const out = resolve(target);
  if (!(await isDir(dirname(out)))) throw new ConfigError(`the folder of ${out} does not exist`);
  const work = await Deno.makeTempDir({ dir: dirname(out), prefix: ".parley-backup-" });
  const partial = join(work, basename(out));
  try {
    // SQLite's online backup: a consistent snapshot while the daemon keeps writing (WAL lets
    // it read in one step without blocking the writer). VACUUM INTO would do too, but Deno
    // allows it only with every permission, which the compiled binary does not have.
    const source = new DatabaseSync(dbPath);
    source.exec("PRAGMA busy_timeout = 5000");
    try {
      await backup(source, join(work, "parley.db"), { rate: 2 ** 30 });
    } finally {
      source.close();
    }
    const manifest = new TextEncoder().encode(
      JSON.stringify({
        parley: VERSION,
        created: new Date().toISOString(),
        note: "search.db is not included: Parley rebuilds it from parley.db at start",
      }) + "\n",
    );
    const now = Math.floor(Date.now() / 1000);
    let count = 0;
    const sources = async function* (): AsyncGenerator<Source> {
      yield {
        entry: { name: MANIFEST, type: "file", size: manifest.length, mode: 0o600, mtime: now },
        bytes: manifest,
      };
      yield (await fileSource(join(work, "parley.db"), "parley.db"))!;
      for (const name of KEPT_FILES) {
        const s = await fileSource(join(config.home, name), name);
        if (s) yield s;
      }
      // Uploads after the database copy may be in the archive without their row; harmless.
      if (await isDir(join(config.home, FILES_DIR))) {
        yield { entry: { name: FILES_DIR, type: "dir", size: 0, mode: 0o700, mtime: now } };
        for await (const s of walk(join(config.home, FILES_DIR), FILES_DIR)) {
          if (s.entry.type === "file") count++;
          yield s;
        }
      }
    };
    const file = await Deno.open(partial, { write: true, create: true, mode: 0o600 });
    await ReadableStream.from(archive(sources()))
      .pipeThrough(new CompressionStream("gzip"))
      .pipeTo(file.writable);
    await Deno.rename(partial, out);
    const size = (await Deno.stat(out)).size;
    console.log(
      `backup written: ${out} (${
        (size / 1e6).toFixed(1)
      } MB, database and ${count} uploaded files; search.db is rebuilt after a restore)`,
    );
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

/** A safe relative path inside the data folder, or an error naming the entry. */
function safeName(name: string): string {
  const parts = name.split("/");
  const allowed = parts[0] === FILES_DIR || [MANIFEST, "parley.db", ...KEPT_FILES].includes(name);
  if (
    !allowed || name.startsWith("/") || name.includes("\\") ||
    parts.some((p) => p === "" || p === "." || p === "..")
  ) {
    throw new ConfigError(`the backup holds "${name}", which is not part of a Parley data folder`);
  }
  return name;
}

/** Runs `parley restore FILE`. */
export async function restoreCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args);
  if (parsed.help) return console.log(RESTORE_USAGE);
  const [source, ...extra] = parsed.positional;
  if (!source || extra.length) throw new ConfigError(`one FILE is needed\n\n${RESTORE_USAGE}`);
  logToStderr();
  const parsedConfig = parseConfig(
    await readSecretFiles({ ...Deno.env.toObject(), ...parsed.env }),
  );
  if (parsedConfig.databaseUrl) {
    throw new ConfigError(
      "PARLEY_DATABASE_URL is set: the store is PostgreSQL; restore it with pg_restore, or " +
        "restore into a data folder without PARLEY_DATABASE_URL and `parley store copy` it",
    );
  }
  const home = parsedConfig.home;
  let input: Deno.FsFile;
  try {
    input = await Deno.open(source);
  } catch (err) {
    throw new ConfigError(`cannot read ${source}: ${(err as Error).message}`);
  }
  await Deno.mkdir(home, { recursive: true, mode: 0o700 });
  for await (const e of Deno.readDir(home)) {
    if (e.name !== LOCK_FILE) {
      input.close();
      throw new ConfigError(
        `${home} is not empty; restore into an empty data folder (set PARLEY_HOME or --home)`,
      );
    }
  }
  const lock = await lockHome(home, "restoring");
  let sawDb = false;
  let sawManifest = false;
  let files = 0;
  try {
    await readTar(
      input.readable.pipeThrough(new DecompressionStream("gzip")),
      async (e, chunks) => {
        const name = safeName(e.name);
        if (!sawManifest && name !== MANIFEST) {
          throw new ConfigError(
            `${source} is not a Parley backup (it does not start with ${MANIFEST})`,
          );
        }
        sawManifest = true;
        if (name === MANIFEST) return;
        const path = join(home, ...name.split("/"));
        if (e.type === "dir") return await Deno.mkdir(path, { recursive: true, mode: 0o700 });
        await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
        const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
        await ReadableStream.from(chunks()).pipeTo(file.writable);
        if (name === "parley.db") sawDb = true;
        else if (name.startsWith(`${FILES_DIR}/`)) files++;
      },
    ).catch((err) => {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(`cannot restore ${source}: ${(err as Error).message}`);
    });
    if (!sawDb) throw new ConfigError(`${source} holds no database (parley.db)`);
    const db = new DatabaseSync(join(home, "parley.db"));
    try {
      const check = db.prepare("PRAGMA quick_check").get() as { quick_check: string };
      if (check.quick_check !== "ok") {
        throw new ConfigError(`the database in ${source} is damaged: ${check.quick_check}`);
      }
    } finally {
      db.close();
    }
  } catch (err) {
    // The folder was empty: take back everything written, so that a retry starts clean.
    for await (const e of Deno.readDir(home)) {
      if (e.name !== LOCK_FILE) await Deno.remove(join(home, e.name), { recursive: true });
    }
    throw err;
  } finally {
    lock.close();
  }
  console.log(`restored ${source} into ${home} (database and ${files} uploaded files)`);
}
