/**
 * Uploaded files: metadata in SQLite, contents on disk under `<files>/<uid>/<file id>`. Contents are
 * streamed to a temporary name and renamed, so a failed or refused upload leaves nothing behind and
 * a reader never sees half a file.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { randomId } from "../../lib/crypto.ts";
import { removeLeftover } from "../../lib/remove.ts";
import { nowMicros } from "../../lib/time.ts";
import {
  type FilePage,
  type FileRow,
  type FileStore,
  FileTooLargeError,
  FIRST_PAGE,
  toRecord,
  UnknownCursorError,
} from "../files.ts";

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
        } catch { /* why: closed already when the error came from the close above */ }
        await removeLeftover(tmp);
        throw err;
      }
      await Deno.rename(tmp, join(folder, id));
      const saved = nowMicros();
      const writeOnly = file.writeOnly ? 1 : 0;
      let row;
      try {
        row = old
          ? q.replace.get(file.name, size, file.type, writeOnly, saved, file.userId, id)
          : q.insert.get(file.userId, id, file.name, size, file.type, writeOnly, saved);
      } catch (err) {
        // No row refers to the contents just written: they would stay on disk, unlisted.
        if (!old) await removeLeftover(join(folder, id));
        throw err;
      }
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
        await removeLeftover(join(userDir(userId), id));
      }
      return n;
    },

    async removeUser(userId) {
      q.removeUser.run(userId);
      await removeLeftover(userDir(userId), { recursive: true });
    },
  };
}
