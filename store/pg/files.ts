/**
 * Uploaded files' contents in PostgreSQL (the rows are shared: store/tables/files.ts), in
 * `file_blobs` in chunks of at most 256 KiB, so that every node serves every file, a database
 * backup holds them, and neither an upload nor a download holds a whole file in memory.
 */
import { log } from "../../lib/log.ts";
import { nowMicros } from "../../lib/time.ts";
import { FileTooLargeError } from "../files.ts";
import type { FileContents } from "../tables/files.ts";
import type { Sql } from "./db.ts";

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

/** Files' contents in `file_blobs`; sweeps the blobs of uploads abandoned by a node that died. */
export function pgFileContents(sql: Sql): FileContents {
  // Blobs left by a node that died mid-upload (their rows never came).
  sql`DELETE FROM file_blobs WHERE blob IN (SELECT blob FROM file_uploads
      WHERE started < ${nowMicros() - ABANDONED_US})`
    .then(() => sql`DELETE FROM file_uploads WHERE started < ${nowMicros() - ABANDONED_US}`)
    .catch((err) => log.warn("abandoned uploads not removed", { error: String(err) }));

  return {
    async write(_userId, content, maxBytes) {
      const { blob, size } = await writeBlob(sql, content, maxBytes);
      return {
        size,
        blob,
        async keep(tx, _id, previous) {
          const { q } = tx;
          await tx.run(q.deleteFrom("file_uploads").where("blob", "=", blob));
          // In the row's transaction, so that no failure after it leaves the replaced contents
          // stored with no row referring to them (and no upload row for the sweep to find).
          if (typeof previous?.blob === "number") {
            await tx.run(q.deleteFrom("file_blobs").where("blob", "=", previous.blob));
          }
        },
        // No file row took the new blob: dropped now rather than left to the sweep.
        drop: () => dropFailed(sql, blob),
      };
    },

    async open(file) {
      const [row] = await sql`SELECT blob FROM files WHERE seq = ${file.seq}`;
      return readBlob(sql, row?.blob ?? null);
    },

    async remove(row) {
      if (typeof row.blob === "number") {
        await sql`DELETE FROM file_blobs WHERE blob = ${row.blob}`;
      }
    },

    async removeUser(_userId, rows) {
      const blobs = rows.map((r) => r.blob).filter((b): b is number => typeof b === "number");
      if (blobs.length) {
        await sql`DELETE FROM file_blobs WHERE blob = ANY(${sql.array(blobs)}::bigint[])`;
      }
    },
  };
}
