/**
 * Uploaded files on either backend (store/files.ts has the interface): the rows are written here
 * once, the contents by each backend (`FileContents`), since they differ on purpose: SQLite keeps
 * them on disk, PostgreSQL in the database so that every node serves every file.
 */
import type { Selectable } from "kysely";
import { randomId } from "../../lib/crypto.ts";
import { nowMicros } from "../../lib/time.ts";
import {
  type FilePage,
  FileQuotaError,
  type FileRecord,
  type FileStore,
  FIRST_PAGE,
  UnknownCursorError,
} from "../files.ts";
import type { Queries, TableDb, Transaction } from "./db.ts";
import { type FilesTable, flag } from "./schema.ts";

/** A `files` row as a backend reads it (`blob` is PostgreSQL's alone). */
type FileRow = Selectable<FilesTable>;

/** Contents written by `FileContents.write` that no row refers to yet. */
interface WrittenContents {
  size: number;
  /** What the row keeps to find them, where the backend needs it (PostgreSQL's blob). */
  blob?: number;
  /**
   * Makes them file `id`'s, inside the transaction that has just written its row; `previous` is
   * the row it replaced, if any. It runs nothing but the transaction's queries and synchronous
   * work (on SQLite, anything awaited meanwhile would run inside the transaction).
   */
  keep(tx: Transaction, id: string, previous: FileRow | undefined): Promise<void>;
  /** Drops them once their row failed (or its transaction did); throws nothing. */
  drop(): Promise<void>;
}

/** Where a backend keeps the files' contents. */
export interface FileContents {
  /**
   * Streams `content` to a new place, at most `maxBytes`: past it, FileTooLargeError, and nothing
   * is left of it (nor after any other failure).
   */
  write(
    userId: number,
    content: ReadableStream<Uint8Array>,
    maxBytes: number,
  ): Promise<WrittenContents>;
  /** A file's contents, as a stream. */
  open(file: FileRecord): Promise<ReadableStream<Uint8Array>>;
  /** Removes the contents of a file whose row was just deleted. */
  remove(row: FileRow): Promise<void>;
  /** Removes the contents of a user's files, whose rows (`rows`) were just deleted. */
  removeUser(userId: number, rows: FileRow[]): Promise<void>;
}

function toRecord(r: FileRow): FileRecord {
  return {
    seq: r.seq,
    id: r.file_id,
    userId: r.user_id,
    name: r.name,
    size: r.size,
    type: r.content_type,
    writeOnly: flag(r.write_only),
    saved: r.saved,
  };
}

/** The FileStore over a backend's executor and its contents. */
export function fileStore(
  db: TableDb,
  contents: FileContents,
  /** The most bytes one user's files may take (0: no bound). */
  quota: () => Promise<number>,
): FileStore {
  const { q } = db;
  const ofUser = (userId: number, id: string) =>
    q.selectFrom("files").selectAll().where("user_id", "=", userId).where("file_id", "=", id);
  const find = async (userId: number, id: string) => {
    const row = await db.first(ofUser(userId, id));
    return row && toRecord(row);
  };
  /** `limit` rows of the user from `seq` on: older ones newest first, or newer ones oldest first. */
  const from = (userId: number, seq: number, older: boolean, limit: number) =>
    db.all(
      q.selectFrom("files").selectAll().where("user_id", "=", userId)
        .where("seq", older ? "<" : ">=", seq).orderBy("seq", older ? "desc" : "asc").limit(limit),
    );

  /** The bytes of the user's files, but for the one at `except`. */
  const used = async (on: Queries, userId: number, except = -1) => {
    const [{ bytes }] = await on.all(
      q.selectFrom("files").select((e) =>
        e.fn.coalesce(e.fn.sum<number>("size"), e.lit(0)).as("bytes")
      )
        .where("user_id", "=", userId)
        .where("seq", "<>", except),
    );
    // PostgreSQL's sum of a bigint is a numeric, read as a string.
    return Number(bytes);
  };

  return {
    async save(file, content, maxBytes) {
      const written = await contents.write(file.userId, content, maxBytes);
      const id = file.replace ?? randomId(16);
      const values = {
        name: file.name,
        size: written.size,
        content_type: file.type,
        write_only: file.writeOnly,
        saved: nowMicros(),
        blob: written.blob,
      };
      try {
        const most = await quota();
        return toRecord(
          await db.transaction(async (tx) => {
            // Saves of one user take turns: each replaces what the one before it kept under a
            // key, and each counts the others' sizes.
            if (file.replace || most > 0) await tx.lockUser(file.userId);
            const previous = file.replace ? await tx.first(ofUser(file.userId, id)) : undefined;
            if (most > 0) {
              const wouldTake = await used(tx, file.userId, previous?.seq) + written.size;
              if (wouldTake > most) throw new FileQuotaError(most, wouldTake);
            }
            const row = previous
              ? await tx.first(
                q.updateTable("files").set(values).where("seq", "=", previous.seq).returningAll(),
              )
              : await tx.first(
                q.insertInto("files").values({ user_id: file.userId, file_id: id, ...values })
                  .returningAll(),
              );
            await written.keep(tx, id, previous);
            return row!;
          }),
        );
      } catch (err) {
        // No row refers to the contents just written: they would stay stored, unlisted.
        await written.drop();
        throw err;
      }
    },

    async get(id) {
      // A chosen id may name files of several users: the oldest, as ever.
      const row = await db.first(
        q.selectFrom("files").selectAll().where("file_id", "=", id).orderBy("seq").limit(1),
      );
      return row && toRecord(row);
    },
    find,

    open: (file) => contents.open(file),

    async page(userId, cursor, limit) {
      let start = Number.MAX_SAFE_INTEGER;
      const first = cursor === undefined || cursor === "" || cursor === FIRST_PAGE ||
        cursor === "prev";
      if (!first) {
        const at = await find(userId, cursor);
        if (!at) throw new UnknownCursorError("No such file.");
        start = at.seq;
      }
      const rows = await from(userId, start, true, limit + 1);
      const files = rows.slice(0, limit).map(toRecord);
      const page: FilePage = first ? { files } : { files, after: cursor };
      if (rows.length > limit) page.next = rows[limit].file_id;
      if (!first) {
        // The previous page ends with the cursor file; its own cursor is the file just newer.
        const newer = await from(userId, start, false, limit + 1);
        page.prev = newer.length > limit ? newer[limit].file_id : "prev";
      }
      return page;
    },

    async usage(userId) {
      const [bytes, max] = await Promise.all([used(db, userId), quota()]);
      return { bytes, max };
    },

    async remove(userId, ids) {
      let n = 0;
      for (const id of new Set(ids)) {
        const gone = await db.first(
          q.deleteFrom("files").where("user_id", "=", userId).where("file_id", "=", id)
            .returningAll(),
        );
        if (!gone) continue;
        n++;
        await contents.remove(gone);
      }
      return n;
    },

    async removeUser(userId) {
      const gone = await db.all(q.deleteFrom("files").where("user_id", "=", userId).returningAll());
      await contents.removeUser(userId, gone);
    },
  };
}
