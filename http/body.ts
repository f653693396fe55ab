/**
 * Reading request bodies within a size limit, by Hono's body-limit middleware: a declared
 * Content-Length over the limit is refused before reading anything, and a chunked body is cut at
 * the chunk that passes the limit, so no request makes Parley hold more than the limit. Refusals
 * are the API's 413 error body.
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors.ts";

/** The limit of a JSON operation's body unless the operation needs more. */
export const JSON_BODY_LIMIT = 64 * 1024;

/** The 413 answer for a body over `limit` bytes. */
function bodyTooLarge(limit: number): ApiError {
  return new ApiError(413, `The request body is larger than the limit of ${limit} bytes.`, "/body");
}

/** Reads the whole body of the request, at most `limit` bytes; throws the 413 ApiError past it. */
export async function readBody(c: Context, limit: number): Promise<Uint8Array> {
  const source = c.req.raw.body?.getReader();
  if (source) {
    // The middleware keeps its reader to itself: reading through this one lets a refusal cancel
    // the body, so nothing more of it is read.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => source.cancel(reason),
    });
    // Built from its parts: a Request made from the request copies its signal, and reading
    // that makes Deno print a warning outside the log (its legacy abort behaviour).
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body,
      duplex: "half",
    } as RequestInit);
  }
  const refuse = async () => {
    await source?.cancel().catch(() => {});
    throw bodyTooLarge(limit);
  };
  // Run as a step of this operation: only operations that read a body in one piece are limited
  // here (uploads stream theirs with limits of their own).
  await bodyLimit({ maxSize: limit, onError: refuse })(c, () => Promise.resolve());
  if (!c.req.raw.body) return new Uint8Array(0);
  const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
  // A body longer than its Content-Length (the server's framing forbids it, a Request in-process
  // does not) is refused all the same.
  if (bytes.length > limit) throw bodyTooLarge(limit);
  return bytes;
}
