/** `parley backup FILE`: the data folder as one .tar.gz. */
import { basename, dirname, join, resolve } from "node:path";
import { removeLeftover } from "../lib/remove.ts";
import { backup, DatabaseSync } from "node:sqlite";
import { createTarPacker, type TarHeader } from "modern-tar";
import { ConfigError, parseCommandLine } from "../config.ts";
import { commandConfig, isDir, refuseOnPostgres } from "./home.ts";
import { BACKUP_USAGE, VERSION } from "./help.ts";
import { FILES_DIR, KEPT_FILES, MANIFEST } from "./backup_layout.ts";

/** One entry of the archive. */
interface TarEntry {
  name: string;
  type: "file" | "dir";
  size: number;
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

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

/** The archive's bytes (tar), entry by entry, each file streamed from disk. */
function archive(sources: AsyncIterable<Source>): ReadableStream<Uint8Array<ArrayBuffer>> {
  const { readable, controller } = createTarPacker();
  (async () => {
    for await (const s of sources) {
      const header: TarHeader = {
        name: s.entry.type === "dir" ? `${s.entry.name}/` : s.entry.name,
        type: s.entry.type === "dir" ? "directory" : "file",
        size: s.entry.type === "dir" ? 0 : s.entry.size,
        mode: s.entry.mode,
        mtime: new Date(s.entry.mtime * 1000),
      };
      const body = controller.add(header).getWriter();
      if (s.entry.type === "file") await writeBody(s, body);
      await body.close();
    }
    controller.finalize();
  })().catch((err) => controller.error(err));
  return readable;
}

/** Exactly the size in the header: a file growing or shrinking meanwhile must not break the archive. */
async function writeBody(s: Source, body: WritableStreamDefaultWriter<Uint8Array>) {
  let written = 0;
  if (s.bytes) {
    await body.write(s.bytes);
    return;
  }
  using file = await Deno.open(s.path!);
  for await (const chunk of file.readable) {
    const part = chunk.subarray(0, s.entry.size - written);
    written += part.length;
    if (part.length) await body.write(part);
    if (written >= s.entry.size) break;
  }
  if (written < s.entry.size) await body.write(new Uint8Array(s.entry.size - written));
}

/** Refuses to replace `out` unless `force`. */
async function refuseExisting(out: string, force: boolean): Promise<void> {
  if (force) return;
  try {
    await Deno.lstat(out);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  throw new ConfigError(`${out} exists; give --force to replace it`);
}

/** Runs `parley backup FILE`. */
export async function backupCommand(args: string[]): Promise<void> {
  const parsed = parseCommandLine(args, [{ name: "force", boolean: true }]);
  if (parsed.help) return console.log(BACKUP_USAGE);
  const force = parsed.switches.has("force");
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
  // An archive already there may be the only good one (a mistyped name, the timer run twice).
  await refuseExisting(out, force);
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
    await archive(sources())
      .pipeThrough(new CompressionStream("gzip"))
      .pipeTo(file.writable);
    // Again: one may have been written meanwhile.
    await refuseExisting(out, force);
    await Deno.rename(partial, out);
    const size = (await Deno.stat(out)).size;
    console.log(
      `backup written: ${out} (${
        (size / 1e6).toFixed(1)
      } MB, database and ${count} uploaded files; search.db is rebuilt after a restore)`,
    );
  } finally {
    await removeLeftover(work, { recursive: true });
  }
}
