/**
 * Reads an upload form (multipart or urlencoded) as a stream. The `file` part is spooled to a
 * temporary file while its bytes are counted, so a too-large upload is stopped at the byte that
 * passes the limit instead of being buffered whole in memory (`Request.formData()` would hold up
 * to the whole limit per request). The spool is then handed to the file store as a stream and
 * removed; a refused upload leaves nothing behind.
 */
import type busboy from "busboy";
import type { Readable } from "node:stream";
import { join } from "node:path";
import { DomainError, invalid } from "../lib/errors.ts";
import { randomId } from "../lib/crypto.ts";
import { lazy } from "../lib/lazy.ts";
import { removeLeftover } from "../lib/remove.ts";

/**
 * An uploaded file's name as kept and shown: its last path part, without control characters or
 * the marks that reverse how text runs (`evil\u202Egnp.html` shows as "evillmth.png"), at most
 * 255 characters; "upload" when nothing is left.
 */
export function cleanFileName(name: string | undefined): string {
  const base = (name ?? "")
    // deno-lint-ignore no-control-regex -- control characters are what is removed
    .replace(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    // Only `/`: a backslash is a letter of a name on Linux and macOS (AC\DC.mp3), and browsers
    // send the base name anyway.
    .split("/").pop()!.trim();
  // Cut by characters, never inside one (an emoji is two UTF-16 units).
  return [...base].slice(0, 255).join("") || "upload";
}

/** The multipart parser, loaded for the first upload. */
const loadBusboy = lazy(async () => (await import("busboy")).default);

/**
 * Room for the form's own framing (boundaries, part headers, small fields) above the limit.
 *
 * @internal test seam
 */
export const FORM_OVERHEAD = 64 * 1024;

/**
 * The longest value of a field other than `file` (an id, a flag): bytes.
 *
 * @internal test seam
 */
export const FIELD_LIMIT = 1024;

/** Thrown when the file grows past the limit. */
export class UploadTooLarge extends Error {}

/** A file being spooled to a temporary name. */
export class Spool {
  #file: Deno.FsFile;
  #closed = false;
  size = 0;
  private constructor(readonly path: string, file: Deno.FsFile, readonly limit: number) {
    this.#file = file;
  }

  /** Creates the spool file in `dir` (created if needed, mode 0700). */
  static async create(dir: string, limit: number): Promise<Spool> {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `.spool-${randomId(12)}`);
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    return new Spool(path, file, limit);
  }

  /** Appends bytes; throws UploadTooLarge, before writing, when they would pass the limit. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.size + chunk.length > this.limit) throw new UploadTooLarge();
    this.size += chunk.length;
    let off = 0;
    while (off < chunk.length) off += await this.#file.write(chunk.subarray(off));
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#file.close();
    } catch { /* why: already closed (the stream ends it); nothing was left unwritten */ }
  }

  /** The spooled contents, for the file store to copy. */
  async readable(): Promise<ReadableStream<Uint8Array>> {
    this.#close();
    return (await Deno.open(this.path, { read: true })).readable;
  }

  /** Closes and removes the spool file. */
  async discard(): Promise<void> {
    this.#close();
    await removeLeftover(this.path);
  }
}

/** The JSON pointer of a form field. */
function pointer(name: string): string {
  return `/body/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** What an upload form carried. */
interface UploadForm {
  spool: Spool;
  /** The uploaded file's name; `paste.txt` when `file` was a text field. */
  name: string;
  /** The part's declared type; undefined for a text field. */
  claimedType?: string;
  /** Whether `file` was a text field (urlencoded, or a plain multipart field). */
  text: boolean;
  fields: Record<string, string>;
}

/**
 * The error for a too-large upload: Convos's "Maximum message size exceeded" at `/file`, as bad
 * input (a 400 at the edge). `limit` goes to the log line of the caller, not the answer (Convos's
 * clients match the text).
 */
export function tooLarge(_limit: number): DomainError {
  return invalid("Maximum message size exceeded", "/file");
}

/**
 * Parses the upload in `req`, spooling its file into `dir`. Throws an `invalid` DomainError, and
 * then no spool is left on disk. The caller discards the returned spool when done.
 */
export async function readUploadForm(
  req: Request,
  dir: string,
  limit: number,
): Promise<UploadForm> {
  const length = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(length) && length > limit + FORM_OVERHEAD) throw tooLarge(limit);
  const type = req.headers.get("content-type") ?? "";
  // No form at all (no body, no type): Convos's "No upload." at /file.
  if (!type) throw invalid("No upload.", "/file");
  if (!/^(multipart\/form-data|application\/x-www-form-urlencoded)\b/i.test(type) || !req.body) {
    throw invalid("Send the file as multipart/form-data or urlencoded form data.", "/body");
  }
  // In multipart form data every text field is cut one byte past FIELD_LIMIT as it streams (the
  // file travels as a file part). Urlencoded, `file` is the text itself, so fields may be as long
  // as the file; the other fields are checked when they end, and the whole body is counted below.
  const multipart = /^multipart\//i.test(type);
  const fieldSize = (multipart ? FIELD_LIMIT : limit) + 1;
  const newParser = await loadBusboy();
  let parser: busboy.Busboy;
  try {
    parser = newParser({
      headers: { "content-type": type },
      // One byte of slack: the spool enforces the exact limit; busboy only stops runaway parts.
      limits: { files: 1, fields: 20, fieldSize, fileSize: limit + 1, parts: 24 },
      // Browsers send a file's name as UTF-8 bytes: read as Latin-1 (busboy's default), café.txt
      // became cafÃ©.txt.
      defParamCharset: "utf8",
    });
  } catch {
    throw invalid("The form data could not be read.", "/body");
  }

  const fields: Record<string, string> = {};
  let upload: Omit<UploadForm, "fields"> | undefined;
  let failure: unknown;
  let failed!: () => void;
  const failedSignal = new Promise<void>((resolve) => failed = resolve);
  const fail = (err: unknown) => {
    failure ??= err;
    failed();
  };
  const work: Promise<void>[] = [];
  let active: Readable | undefined;

  parser.on("file", (field: string, stream: Readable, info: busboy.FileInfo) => {
    if (field !== "file" || upload || failure) {
      stream.resume();
      return;
    }
    active = stream;
    work.push((async () => {
      const spool = await Spool.create(dir, limit);
      upload = {
        spool,
        name: cleanFileName(info.filename),
        claimedType: info.mimeType,
        text: false,
      };
      try {
        for await (const chunk of stream) {
          if (failure) break;
          await spool.write(chunk as Uint8Array);
        }
        // busboy stops a part at fileSize and flags it rather than failing.
        if ((stream as Readable & { truncated?: boolean }).truncated) throw new UploadTooLarge();
      } catch (err) {
        fail(err);
        stream.resume();
      }
    })());
  });
  parser.on("field", (name: string, value: string, info: busboy.FieldInfo) => {
    const fieldTooLong = name !== "file" && new TextEncoder().encode(value).length > FIELD_LIMIT;
    if (info.valueTruncated && name === "file" && multipart) {
      fail(invalid("Send the file as a file part (with a file name).", "/body/file"));
    } else if (info.valueTruncated || fieldTooLong) {
      fail(
        name === "file"
          ? new UploadTooLarge()
          : invalid(`A field may hold at most ${FIELD_LIMIT} bytes.`, pointer(name)),
      );
    } else if (name === "file" && !upload) {
      work.push((async () => {
        const spool = await Spool.create(dir, limit);
        upload = { spool, name: "paste.txt", text: true };
        try {
          await spool.write(new TextEncoder().encode(value));
        } catch (err) {
          fail(err);
        }
      })());
    } else {
      fields[name] = value;
    }
  });
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", reject);
  });

  try {
    const reader = req.body.getReader();
    let received = 0;
    while (!failure) {
      const { done, value } = await reader.read();
      if (done) break;
      // A body without Content-Length is counted as it arrives.
      received += value.length;
      if (received > limit + FORM_OVERHEAD) {
        fail(new UploadTooLarge());
        break;
      }
      if (!parser.write(value)) {
        await Promise.race([new Promise((r) => parser.once("drain", r)), failedSignal]);
      }
    }
    if (failure) {
      // why: the upload already failed with its own error; cancelling only lets the body go.
      await reader.cancel().catch(() => {});
      active?.destroy(); // the file part gets no more data: end it so its writer finishes
    } else {
      parser.end();
      await Promise.race([finished, failedSignal]);
    }
    await Promise.all(work);
  } catch (err) {
    fail(
      err instanceof DomainError || err instanceof UploadTooLarge
        ? err
        : invalid("The form data could not be read.", "/body"),
    );
    await Promise.allSettled(work);
  }
  if (failure) {
    await upload?.spool.discard();
    if (failure instanceof UploadTooLarge) throw tooLarge(limit);
    throw failure;
  }
  if (!upload || (upload.text && upload.spool.size === 0)) {
    await upload?.spool.discard();
    throw invalid("file is required.", "/body/file");
  }
  return { ...upload, fields };
}
