/** Saving, reading and deleting files: the store's metadata and the contents on disk together. */
import type { Config } from "../config.ts";
import type { Store } from "../store/mod.ts";
import type { FileRecord } from "../store/files.ts";
import { randomId } from "../lib/crypto.ts";
import { nowMicros } from "../lib/time.ts";
import { filePath, type PendingFile, removeContents, removeUserDir, writeWhole } from "./disk.ts";
import { contentTypeFor } from "./types.ts";

/** What the file operations need. */
export interface FileDeps {
  config: Config;
  store: Store;
}

/** A new file id: 128 random bits, URL-safe base64 (22 characters). */
export function newFileId(): string {
  return randomId(16);
}

/** The public URL of a file: readable without login by anyone who knows it. */
export function fileUrl(config: Config, file: FileRecord): string {
  const base = config.baseUrl.href.replace(/\/+$/, "");
  return `${base}/api/files/${file.userId}/${file.id}`;
}

/** Moves an uploaded temporary file into place and records it. */
export async function commitUpload(
  deps: FileDeps,
  userId: number,
  pending: PendingFile,
  opts: { id?: string; name: string; claimedType?: string; writeOnly: boolean },
): Promise<FileRecord> {
  const id = opts.id ?? newFileId();
  await pending.commit(filePath(deps.config.home, userId, id));
  return await deps.store.files.save({
    id,
    userId,
    name: cleanName(opts.name),
    contentType: contentTypeFor(opts.name, opts.claimedType),
    size: pending.size,
    writeOnly: opts.writeOnly,
    saved: nowMicros(),
  });
}

/** Saves a text as a new `.txt` file (pastes) and returns its record. */
export async function saveText(
  deps: FileDeps,
  userId: number,
  text: string,
  name = "paste.txt",
): Promise<FileRecord> {
  const id = newFileId();
  const data = new TextEncoder().encode(text);
  await writeWhole(deps.config.home, userId, id, data);
  return await deps.store.files.save({
    id,
    userId,
    name,
    contentType: contentTypeFor(name),
    size: data.length,
    writeOnly: false,
    saved: nowMicros(),
  });
}

/** Deletes some of a user's files; ids that are not the user's are ignored. Returns the count. */
export async function deleteFiles(deps: FileDeps, userId: number, ids: string[]): Promise<number> {
  const gone = await deps.store.files.remove(userId, ids.filter((id) => /^[\w-]+$/.test(id)));
  await removeContents(deps.config.home, userId, gone);
  return gone.length;
}

/** Deletes every file of a user (the user is being deleted). */
export async function deleteUserFiles(deps: FileDeps, userId: number): Promise<void> {
  await deps.store.files.remove(userId, await deps.store.files.ids(userId));
  await removeUserDir(deps.config.home, userId);
}

/** A file name without folders or control characters, at most 200 characters. */
export function cleanName(name: string): string {
  // deno-lint-ignore no-control-regex -- control characters are exactly what is removed
  const base = name.split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return (base || "upload").slice(0, 200);
}
