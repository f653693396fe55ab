/**
 * Reading request bodies within a size limit. The bytes are counted as they arrive: a declared
 * Content-Length over the limit is refused before reading anything, and a chunked body is cut at
 * the chunk that passes the limit, so no request makes Parley hold more than the limit.
 */
import { ApiError } from "./errors.ts";

/** The limit of a JSON operation's body unless the operation needs more. */
export const JSON_BODY_LIMIT = 64 * 1024;

/** The 413 answer for a body over `limit` bytes. */
export function bodyTooLarge(limit: number): ApiError {
  return new ApiError(413, `The request body is larger than the limit of ${limit} bytes.`, "/body");
}

/** Reads the whole body of `req`, at most `limit` bytes; throws the 413 ApiError past it. */
export async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel().catch(() => {});
    throw bodyTooLarge(limit);
  }
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
