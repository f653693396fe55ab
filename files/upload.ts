/**
 * Reads an upload form (multipart or urlencoded) as a stream: the `file` part goes straight to a
 * temporary file and the upload limit is counted while it arrives, so a too-large body is never
 * buffered whole and leaves nothing behind.
 */
import busboy from "busboy";
import type { Readable } from "node:stream";
import { ApiError, badRequest } from "../http/errors.ts";
import { PendingFile, TooLarge } from "./disk.ts";

/** What an upload form carried. */
export interface UploadForm {
  file: PendingFile;
  /** The uploaded file's name (`paste.txt` for urlencoded text). */
  name: string;
  claimedType?: string;
  fields: Record<string, string>;
}

// Room for the form's own framing (boundaries, part headers, small fields) above the file's limit.
const FORM_OVERHEAD = 64 * 1024;

/** The 413 answer for a too-large upload. */
export function tooLarge(limit: number): ApiError {
  return new ApiError(413, `The file is larger than the limit of ${limit} bytes.`, "/body/file");
}

/** Parses the upload in `req`; throws ApiError (400/413) and then leaves no file on disk. */
export async function readUploadForm(
  req: Request,
  home: string,
  userId: number,
  limit: number,
): Promise<UploadForm> {
  const length = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(length) && length > limit + FORM_OVERHEAD) throw tooLarge(limit);
  const type = req.headers.get("content-type") ?? "";
  if (!/^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(type) || !req.body) {
    throw badRequest("Expected multipart/form-data or application/x-www-form-urlencoded.", "/body");
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": type },
      // One byte of slack: PendingFile enforces the exact limit, busboy only stops runaway parts.
      limits: { files: 1, fields: 20, fieldSize: limit + 1, fileSize: limit + 1, parts: 24 },
    });
  } catch {
    throw badRequest("The form could not be read.", "/body");
  }

  const fields: Record<string, string> = {};
  let upload: { file: PendingFile; name: string; claimedType?: string } | undefined;
  let failure: unknown;
  const work: Promise<void>[] = [];
  let active: Readable | undefined;
  let failed!: () => void;
  const failedSignal = new Promise<void>((r) => failed = r);
  const fail = (err: unknown) => {
    failure ??= err;
    failed();
  };

  parser.on("file", (field: string, stream: Readable, info: busboy.FileInfo) => {
    if (field !== "file" || upload || failure) {
      stream.resume();
      return;
    }
    active = stream;
    work.push((async () => {
      const file = await PendingFile.create(home, userId, limit);
      upload = { file, name: info.filename || "upload", claimedType: info.mimeType };
      try {
        for await (const chunk of stream) {
          if (failure) break;
          await file.write(chunk as Uint8Array);
        }
        // busboy stops at fileSize and flags the stream instead of erroring.
        if ((stream as Readable & { truncated?: boolean }).truncated) throw new TooLarge();
      } catch (err) {
        fail(err);
        stream.resume();
      }
    })());
  });
  parser.on("field", (name: string, value: string, info: busboy.FieldInfo) => {
    if (info.valueTruncated) {
      fail(name === "file" ? new TooLarge() : badRequest("Field too long.", `/body/${name}`));
      return;
    }
    if (name === "file" && !upload) {
      // A urlencoded (or plain multipart field) upload: the text is the file.
      work.push((async () => {
        const file = await PendingFile.create(home, userId, limit);
        upload = { file, name: "paste.txt", claimedType: "text/plain" };
        try {
          await file.write(new TextEncoder().encode(value));
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
    while (!failure) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!parser.write(value)) {
        await Promise.race([new Promise((r) => parser.once("drain", r)), failedSignal]);
      }
    }
    if (failure) {
      await reader.cancel().catch(() => {});
      // The file part will get no more data: end it so its writer finishes.
      active?.destroy();
    } else {
      parser.end();
      await Promise.race([finished, failedSignal]);
    }
    await Promise.all(work);
  } catch (err) {
    fail(
      err instanceof ApiError || err instanceof TooLarge ? err : badRequest(
        "The form could not be read.",
        "/body",
      ),
    );
    await Promise.allSettled(work);
  }
  if (failure) {
    await upload?.file.discard();
    if (failure instanceof TooLarge) throw tooLarge(limit);
    if (failure instanceof ApiError) throw failure;
    throw failure;
  }
  if (!upload) throw badRequest("A file is required.", "/body/file");
  return { ...upload, fields };
}
