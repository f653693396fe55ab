/**
 * Uploaded files: metadata in SQLite, contents on disk under `<files>/<uid>/<file id>`. Contents are
 * streamed to a temporary name and renamed, so a failed or refused upload leaves nothing behind and
 * a reader never sees half a file.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { randomId } from "../lib/crypto.ts";
import { nowMicros } from "../lib/time.ts";

/** A file as stored. */
export interface FileRecord {
  /** Insertion order, for paging. */
  seq: number;
  /** The API's file id. */
  id: string;
  userId: number;
  name: string;
  size: number;
  /** The media type it was uploaded with (or guessed from its name). */
  type: string;
  writeOnly: boolean;
  /** Microseconds. */
  saved: number;
}

/** What `save` is given besides the contents. */
export interface NewFile {
  userId: number;
  name: string;
  type: string;
  writeOnly: boolean;
  /**
   * Replace the contents of this existing file of the user; when no file has this id yet, it is
   * created with it (a key stored by a client under a name of its choosing, as in Convos).
   */
  replace?: string;
}

/** One page of a user's files (see `FileStore.page`). */
export interface FilePage {
  files: FileRecord[];
  /** The cursor that returns this page again; absent on the first page. */
  after?: string;
  /** The cursor of the previous (newer) page; absent on the first page. */
  prev?: string;
  /**
   * The first file of the next (older) page, absent on the last page: a flag, as in Convos. The
   * next page's cursor is the last file of this one.
   */
  next?: string;
}

/**
 * The public URL of a file, under the external base URL (which may have a path). Convos's form,
 * `/file/<uid>/<id>` (web-files.t:34): scripts and clients written for Convos recognise it, and
 * it redirects to the API's URL of the file (routes/web.ts).
 */
export function fileUrl(baseUrl: URL, file: Pick<FileRecord, "userId" | "id">): string {
  return new URL(`file/${file.userId}/${file.id}`, baseUrl.href.replace(/\/?$/, "/")).href;
}

/** Thrown by `save` when the contents exceed the limit; nothing is left on disk. */
export class FileTooLargeError extends Error {}

/** Thrown by `page` for a cursor that names no file of the user. */
export class UnknownCursorError extends Error {}

/** The literal cursors `after` and `prev` both name the first (newest) page. */
export const FIRST_PAGE = "after";

/** Storage of uploaded files. */
export interface FileStore {
  /** Streams `content` to disk (at most `maxBytes`) and records it; throws FileTooLargeError. */
  save(file: NewFile, content: ReadableStream<Uint8Array>, maxBytes: number): Promise<FileRecord>;
  /** A file by its id, whoever owns it (a random id; a chosen one may name several). */
  get(id: string): Promise<FileRecord | undefined>;
  /** One user's file by its id. */
  find(userId: number, id: string): Promise<FileRecord | undefined>;
  /** A file's contents, as a stream. */
  open(file: FileRecord): Promise<ReadableStream<Uint8Array>>;
  /**
   * A page of the user's files, newest first. `cursor` is absent, `after` or `prev` for the first
   * page, or the id of the file just before the wanted page (the last of the page before).
   */
  page(userId: number, cursor: string | undefined, limit: number): Promise<FilePage>;
  /** Deletes those of `ids` that belong to the user; returns how many were deleted. */
  remove(userId: number, ids: string[]): Promise<number>;
  /** Deletes every file of a user (before the user is deleted). */
  removeUser(userId: number): Promise<void>;
}

/** A `files` row (write_only is 0/1 in SQLite, a boolean in PostgreSQL). */
export interface FileRow {
  seq: number;
  file_id: string;
  user_id: number;
  name: string;
  size: number;
  content_type: string;
  write_only: number | boolean;
  saved: number;
}

/** A stored row as a FileRecord. */
export function toRecord(r: FileRow): FileRecord {
  return {
    seq: r.seq,
    id: r.file_id,
    userId: r.user_id,
    name: r.name,
    size: r.size,
    type: r.content_type,
    writeOnly: Boolean(r.write_only),
    saved: r.saved,
  };
}

async function writeAll(file: Deno.FsFile, chunk: Uint8Array): Promise<void> {
  let off = 0;
  while (off < chunk.length) off += await file.write(chunk.subarray(off));
}

/** The SQLite-and-disk implementation of FileStore; `dir` is `<PARLEY_HOME>/files`. */
export function sqliteFileStore(db: DatabaseSync, dir: string | undefined): FileStore {
  const q = {
    get: db.prepare("SELECT * FROM files WHERE file_id = ?"),
    find: db.prepare("SELECT * FROM files WHERE user_id = ? AND file_id = ?"),
    insert: db.prepare(`INSERT INTO files
      (user_id, file_id, name, size, content_type, write_only, saved)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`),
    replace: db.prepare(`UPDATE files SET name = ?, size = ?, content_type = ?, write_only = ?,
      saved = ? WHERE user_id = ? AND file_id = ? RETURNING *`),
    older: db.prepare(
      "SELECT * FROM files WHERE user_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
    ),
    newer: db.prepare("SELECT * FROM files WHERE user_id = ? AND seq >= ? ORDER BY seq LIMIT ?"),
    remove: db.prepare("DELETE FROM files WHERE user_id = ? AND file_id = ?"),
    removeUser: db.prepare("DELETE FROM files WHERE user_id = ?"),
  };
  const root = () => {
    if (!dir) throw new Error("the file store has no folder");
    return dir;
  };
  const userDir = (userId: number) => join(root(), String(userId));
  const byId = (id: string) => {
    const row = q.get.get(id) as FileRow | undefined;
    return row && toRecord(row);
  };
  const find = (userId: number, id: string) => {
    const row = q.find.get(userId, id) as FileRow | undefined;
    return row && toRecord(row);
  };

  return {
    async save(file, content, maxBytes) {
      const old = file.replace ? find(file.userId, file.replace) : undefined;
      const folder = userDir(file.userId);
      await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
      const id = old?.id ?? file.replace ?? randomId(16);
      const tmp = join(folder, `.upload-${randomId(12)}`);
      const out = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
      let size = 0;
      try {
        for await (const chunk of content) {
          size += chunk.length;
          if (size > maxBytes) throw new FileTooLargeError("The file is too large.");
          await writeAll(out, chunk);
        }
        out.close();
      } catch (err) {
        try {
          out.close();
        } catch { /* already closed */ }
        await Deno.remove(tmp).catch(() => {});
        throw err;
      }
      await Deno.rename(tmp, join(folder, id));
      const saved = nowMicros();
      const row = old
        ? q.replace.get(file.name, size, file.type, file.writeOnly ? 1 : 0, saved, file.userId, id)
        : q.insert.get(file.userId, id, file.name, size, file.type, file.writeOnly ? 1 : 0, saved);
      return toRecord(row as unknown as FileRow);
    },

    get: (id) => Promise.resolve(byId(id)),
    find: (userId, id) => Promise.resolve(find(userId, id)),

    open: async (file) =>
      (await Deno.open(join(userDir(file.userId), file.id), { read: true })).readable,

    page(userId, cursor, limit) {
      let start = Number.MAX_SAFE_INTEGER;
      const first = cursor === undefined || cursor === "" || cursor === FIRST_PAGE ||
        cursor === "prev";
      if (!first) {
        const at = find(userId, cursor);
        if (!at) {
          return Promise.reject(new UnknownCursorError("No such file."));
        }
        start = at.seq;
      }
      const rows = q.older.all(userId, start, limit + 1) as unknown as FileRow[];
      const files = rows.slice(0, limit).map(toRecord);
      const page: FilePage = first ? { files } : { files, after: cursor };
      if (rows.length > limit) page.next = rows[limit].file_id;
      if (!first) {
        // The previous page ends with the cursor file; its own cursor is the file just newer.
        const newer = q.newer.all(userId, start, limit + 1) as unknown as FileRow[];
        page.prev = newer.length > limit ? newer[limit].file_id : "prev";
      }
      return Promise.resolve(page);
    },

    async remove(userId, ids) {
      let n = 0;
      for (const id of new Set(ids)) {
        if (Number(q.remove.run(userId, id).changes) === 0) continue;
        n++;
        await Deno.remove(join(userDir(userId), id)).catch(() => {});
      }
      return n;
    },

    async removeUser(userId) {
      q.removeUser.run(userId);
      await Deno.remove(userDir(userId), { recursive: true }).catch(() => {});
    },
  };
}
