/** Files: metadata of uploaded files. The contents are kept on disk by `files/disk.ts`. */
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./db.ts";

/** One uploaded file as stored. */
export interface FileRecord {
  /** Internal, increasing with every save; orders listings. */
  seq: number;
  /** Public id: 128-bit random, URL-safe. */
  id: string;
  userId: number;
  name: string;
  contentType: string;
  size: number;
  writeOnly: boolean;
  /** Microseconds. */
  saved: number;
}

/** Storage of file metadata. */
export interface FileStore {
  /** Inserts a file, or replaces the user's file with the same id (it then counts as newest). */
  save(file: Omit<FileRecord, "seq">): Promise<FileRecord>;
  get(userId: number, id: string): Promise<FileRecord | undefined>;
  /** The user's files older than `beforeSeq` (all when undefined), newest first. */
  list(userId: number, beforeSeq: number | undefined, limit: number): Promise<FileRecord[]>;
  /** The user's files newer than `afterSeq`, oldest first (to find the previous page). */
  listNewer(userId: number, afterSeq: number, limit: number): Promise<FileRecord[]>;
  /** Removes the user's files with these ids; returns the ids that existed. */
  remove(userId: number, ids: string[]): Promise<string[]>;
  /** Every file id of a user. */
  ids(userId: number): Promise<string[]>;
}

interface Row {
  seq: number;
  id: string;
  user_id: number;
  name: string;
  content_type: string;
  size: number;
  write_only: number;
  saved: number;
}

function toRecord(r: Row): FileRecord {
  return {
    seq: r.seq,
    id: r.id,
    userId: r.user_id,
    name: r.name,
    contentType: r.content_type,
    size: r.size,
    writeOnly: r.write_only === 1,
    saved: r.saved,
  };
}

/** The SQLite implementation of FileStore. */
export function sqliteFileStore(db: DatabaseSync): FileStore {
  const q = {
    remove: db.prepare("DELETE FROM files WHERE user_id = ? AND id = ? RETURNING id"),
    insert: db.prepare(`INSERT INTO files (id, user_id, name, content_type, size, write_only, saved)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`),
    get: db.prepare("SELECT * FROM files WHERE user_id = ? AND id = ?"),
    first: db.prepare("SELECT * FROM files WHERE user_id = ? ORDER BY seq DESC LIMIT ?"),
    before: db.prepare(
      "SELECT * FROM files WHERE user_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
    ),
    newer: db.prepare("SELECT * FROM files WHERE user_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?"),
    ids: db.prepare("SELECT id FROM files WHERE user_id = ?"),
  };
  return {
    save(f) {
      const row = transaction(db, () => {
        q.remove.run(f.userId, f.id);
        return q.insert.get(
          f.id,
          f.userId,
          f.name,
          f.contentType,
          f.size,
          f.writeOnly ? 1 : 0,
          f.saved,
        ) as unknown as Row;
      });
      return Promise.resolve(toRecord(row));
    },
    get(userId, id) {
      const row = q.get.get(userId, id) as Row | undefined;
      return Promise.resolve(row && toRecord(row));
    },
    list(userId, beforeSeq, limit) {
      const rows = beforeSeq === undefined
        ? q.first.all(userId, limit)
        : q.before.all(userId, beforeSeq, limit);
      return Promise.resolve((rows as unknown as Row[]).map(toRecord));
    },
    listNewer(userId, afterSeq, limit) {
      return Promise.resolve(
        (q.newer.all(userId, afterSeq, limit) as unknown as Row[]).map(toRecord),
      );
    },
    remove(userId, ids) {
      const gone = transaction(db, () =>
        ids.flatMap((id) => {
          const row = q.remove.get(userId, id) as { id: string } | undefined;
          return row ? [row.id] : [];
        }));
      return Promise.resolve(gone);
    },
    ids(userId) {
      return Promise.resolve((q.ids.all(userId) as { id: string }[]).map((r) => r.id));
    },
  };
}
