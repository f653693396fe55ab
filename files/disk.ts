/** File contents on disk: `<home>/files/<uid>/<id>`, written under a temporary name then renamed. */
import { join } from "node:path";
import { randomId } from "../lib/crypto.ts";

/** The folder of one user's files. */
export function userDir(home: string, userId: number): string {
  return join(home, "files", String(userId));
}

/** The path of one stored file; ids are URL-safe base64, so they cannot climb out of the folder. */
export function filePath(home: string, userId: number, id: string): string {
  if (!/^[\w-]+$/.test(id)) throw new Error("bad file id");
  return join(userDir(home, userId), id);
}

/** Thrown when a file grows past the upload limit while it is being written. */
export class TooLarge extends Error {}

/** A file being written under a temporary name in the user's folder. */
export class PendingFile {
  #file: Deno.FsFile;
  size = 0;
  private constructor(readonly path: string, file: Deno.FsFile, readonly limit: number) {
    this.#file = file;
  }

  /** Creates the temporary file (and the user's folder). */
  static async create(home: string, userId: number, limit: number): Promise<PendingFile> {
    const dir = userDir(home, userId);
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `.upload-${randomId(12)}`);
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    return new PendingFile(path, file, limit);
  }

  /** Appends bytes; throws TooLarge (before writing) when they would pass the limit. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.size + chunk.length > this.limit) throw new TooLarge();
    this.size += chunk.length;
    let off = 0;
    while (off < chunk.length) off += await this.#file.write(chunk.subarray(off));
  }

  /** Closes and renames the file to its final place. */
  async commit(finalPath: string): Promise<void> {
    this.#file.close();
    await Deno.rename(this.path, finalPath);
  }

  /** Closes and removes the temporary file. */
  async discard(): Promise<void> {
    try {
      this.#file.close();
    } catch { /* already closed */ }
    await Deno.remove(this.path).catch(() => {});
  }
}

/** Writes a whole file (used for pastes) through a temporary name. */
export async function writeWhole(
  home: string,
  userId: number,
  id: string,
  data: Uint8Array,
): Promise<void> {
  const pending = await PendingFile.create(home, userId, Infinity);
  try {
    await pending.write(data);
    await pending.commit(filePath(home, userId, id));
  } catch (err) {
    await pending.discard();
    throw err;
  }
}

/** Removes stored contents; a missing file is not an error. */
export async function removeContents(home: string, userId: number, ids: string[]): Promise<void> {
  for (const id of ids) await Deno.remove(filePath(home, userId, id)).catch(() => {});
}

/** Removes a user's whole folder. */
export async function removeUserDir(home: string, userId: number): Promise<void> {
  await Deno.remove(userDir(home, userId), { recursive: true }).catch(() => {});
}
