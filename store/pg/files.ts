/**
 * Uploaded files in PostgreSQL: the rows as in SQLite, the contents in `file_blobs` in chunks of
 * at most 256 KiB, so that every node serves every file, a database backup holds them, and
 * neither an upload nor a download holds a whole file in memory.
 */
import { randomId } from "../../lib/crypto.ts";
import { log } from "../../lib/log.ts";
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
import { pgString, type Sql } from "./db.ts";

/** Bytes per stored chunk. */
const CHUNK = 256 * 1024;
/** An upload whose blob is this old (µs) belongs to a node that died while writing it. */
const ABANDONED_US = 6 * 3600 * 1_000_000;

/**
 * Writes `content` as a new blob (at most `maxBytes`, else FileTooLargeError and nothing kept);
 * returns its id and size. The blob is listed in `file_uploads` until its file row takes it.
 */
export async function writeBlob(
  sql: Sql,
  content: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ blob: number; size: number }> {
  const [{ blob }] = await sql`SELECT nextval('file_blob_ids')::bigint AS blob`;
  await sql`INSERT INTO file_uploads (blob, started) VALUES (${blob}, ${nowMicros()})`;
  let size = 0;
  let n = 0;
  let buf = new Uint8Array(CHUNK);
  let fill = 0;
  const put = async () => {
    if (!fill) return;
    await sql`INSERT INTO file_blobs (blob, n, data) VALUES (${blob}, ${n++}, ${
      buf.slice(0, fill)
    })`;
    fill = 0;
  };
  try {
    for await (const chunk of content) {
      size += chunk.length;
      if (size > maxBytes) throw new FileTooLargeError("The file is too large.");
      let off = 0;
      while (off < chunk.length) {
        const take = Math.min(CHUNK - fill, chunk.length - off);
        buf.set(chunk.subarray(off, off + take), fill);
        fill += take;
        off += take;
        if (fill === CHUNK) {
          await put();
          buf = new Uint8Array(CHUNK);
        }
      }
    }
    await put();
  } catch (err) {
    await dropFailed(sql, blob);
    throw err;
  }
  return { blob, size };
}

async function dropBlob(sql: Sql, blob: number): Promise<void> {
  await sql`DELETE FROM file_blobs WHERE blob = ${blob}`;
  await sql`DELETE FROM file_uploads WHERE blob = ${blob}`;
}

/**
 * Drops the blob of an upload that failed. Its upload row goes last, so that whatever this cannot
 * drop the sweep of abandoned uploads takes later; the upload's own error is the one its caller
 * throws, so this one is logged.
 */
async function dropFailed(sql: Sql, blob: number): Promise<void> {
  await dropBlob(sql, blob).catch((err) =>
    log.warn("could not drop a failed upload; the sweep will", { blob, error: String(err) })
  );
}

/** A blob's contents, read one chunk at a time as the reader asks. */
function readBlob(sql: Sql, blob: number | null): ReadableStream<Uint8Array> {
  let n = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (blob === null) return controller.close();
      const [row] = await sql`SELECT data FROM file_blobs WHERE blob = ${blob} AND n = ${n++}`;
      if (!row) return controller.close();
      controller.enqueue(new Uint8Array(row.data));
    },
  });
}

/** The PostgreSQL implementation of FileStore. */
export function pgFileStore(sql: Sql): FileStore {
  const find = async (userId: number, id: string) => {
    const [row] = await sql<FileRow[]>`SELECT * FROM files
      WHERE user_id = ${userId} AND file_id = ${pgString(id)}`;
    return row && toRecord(row);
  };
  // Blobs left by a node that died mid-upload (their rows never came).
  sql`DELETE FROM file_blobs WHERE blob IN (SELECT blob FROM file_uploads
      WHERE started < ${nowMicros() - ABANDONED_US})`
    .then(() => sql`DELETE FROM file_uploads WHERE started < ${nowMicros() - ABANDONED_US}`)
    .catch((err) => log.warn("abandoned uploads not removed", { error: String(err) }));

  return {
    async save(file, content, maxBytes) {
      const { blob, size } = await writeBlob(sql, content, maxBytes);
      const saved = nowMicros();
      const written = sql.begin(async (raw) => {
        const tx = raw as unknown as Sql;
        const [prev] = file.replace
          ? await tx`SELECT blob FROM files WHERE user_id = ${file.userId}
              AND file_id = ${pgString(file.replace)} FOR UPDATE`
          : [];
        const [row] = prev
          ? await tx<FileRow[]>`UPDATE files SET name = ${pgString(file.name)}, size = ${size},
              content_type = ${pgString(file.type)}, write_only = ${file.writeOnly},
              saved = ${saved}, blob = ${blob}
            WHERE user_id = ${file.userId} AND file_id = ${pgString(file.replace!)} RETURNING *`
          : await tx<FileRow[]>`INSERT INTO files
              (user_id, file_id, name, size, content_type, write_only, saved, blob)
            VALUES (${file.userId}, ${pgString(file.replace ?? randomId(16))},
              ${pgString(file.name)}, ${size}, ${pgString(file.type)}, ${file.writeOnly},
              ${saved}, ${blob})
            RETURNING *`;
        await tx`DELETE FROM file_uploads WHERE blob = ${blob}`;
        // In the same transaction, so that no failure after it leaves the replaced contents
        // stored with no row referring to them (and no upload row for the sweep to find).
        if (prev?.blob !== undefined && prev.blob !== null) {
          await tx`DELETE FROM file_blobs WHERE blob = ${prev.blob}`;
        }
        return row;
      }) as Promise<FileRow>;
      try {
        return toRecord(await written);
      } catch (err) {
        // No file row took the new blob: drop it now rather than leave it to the sweep.
        await dropFailed(sql, blob);
        throw err;
      }
    },

    async get(id) {
      const [row] = await sql<FileRow[]>`SELECT * FROM files WHERE file_id = ${pgString(id)}
        ORDER BY seq LIMIT 1`;
      return row && toRecord(row);
    },
    find,

    async open(file) {
      const [row] = await sql`SELECT blob FROM files WHERE seq = ${file.seq}`;
      return readBlob(sql, row?.blob ?? null);
    },

    async page(userId, cursor, limit) {
      let start = Number.MAX_SAFE_INTEGER;
      const first = cursor === undefined || cursor === "" || cursor === FIRST_PAGE ||
        cursor === "prev";
      if (!first) {
        const at = await find(userId, cursor);
        if (!at) throw new UnknownCursorError("No such file.");
        start = at.seq;
      }
      const rows = await sql<FileRow[]>`SELECT * FROM files
        WHERE user_id = ${userId} AND seq < ${start} ORDER BY seq DESC LIMIT ${limit + 1}`;
      const files = rows.slice(0, limit).map(toRecord);
      const page: FilePage = first ? { files } : { files, after: cursor };
      if (rows.length > limit) page.next = rows[limit].file_id;
      if (!first) {
        // The previous page ends with the cursor file; its own cursor is the file just newer.
        const newer = await sql<FileRow[]>`SELECT * FROM files
          WHERE user_id = ${userId} AND seq >= ${start} ORDER BY seq LIMIT ${limit + 1}`;
        page.prev = newer.length > limit ? newer[limit].file_id : "prev";
      }
      return page;
    },

    async remove(userId, ids) {
      let n = 0;
      for (const id of new Set(ids)) {
        const gone = await sql`DELETE FROM files
          WHERE user_id = ${userId} AND file_id = ${pgString(id)} RETURNING blob`;
        if (!gone.length) continue;
        n++;
        if (gone[0].blob !== null) await sql`DELETE FROM file_blobs WHERE blob = ${gone[0].blob}`;
      }
      return n;
    },

    async removeUser(userId) {
      const gone = await sql`DELETE FROM files WHERE user_id = ${userId} RETURNING blob`;
      const blobs = gone.map((r) => r.blob).filter((b) => b !== null);
      if (blobs.length) {
        await sql`DELETE FROM file_blobs WHERE blob = ANY(${sql.array(blobs)}::bigint[])`;
      }
    },
  };
}
