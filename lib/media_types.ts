/** Media types of uploaded files: guessing one from a name, and deciding how a type may be served. */
import { getMimeType, mimes } from "hono/utils/mime";

// Hono's table of common web types, and what Parley has long read as text besides it.
const BY_EXT: Record<string, string> = {
  ...mimes,
  log: "text/plain",
  md: "text/plain",
  ogg: "audio/ogg",
};

/**
 * The media type an extension names, without parameters; undefined when it is unknown.
 *
 * @internal test seam
 */
export function typeOfExtension(ext: string): string | undefined {
  const type = ext ? getMimeType(`x.${ext}`, BY_EXT) : undefined;
  return type?.split(";")[0].trim();
}

// Types a browser shows without running anything in the server's origin. Everything else is sent
// as a download that cannot run: scripts, CSS, HTML, SVG and XML would run or style a page if
// served with their own type (a `<script src>` pointing at an upload, should any HTML ever be
// injected), whatever the disposition; as application/octet-stream under nosniff they cannot.
const INLINE = new Set([
  "text/plain",
  "application/json",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "audio/mpeg",
  "audio/ogg",
  "video/mp4",
  "video/ogg",
  "video/webm",
]);

// Types downloaded with their own type (as Convos serves them): PDF cannot run; HTML, XHTML and
// SVG could, but go out as attachments under `Content-Security-Policy: sandbox` and nosniff, so a
// browser neither renders them in this origin nor runs them from a `<script src>` (nosniff lets
// only JavaScript types run as scripts).
const DOWNLOAD_TYPED = new Set([
  "application/pdf",
  "text/html",
  "application/xhtml+xml",
  "image/svg+xml",
]);

/** The extension of a file name, lower-cased and without the dot; "" when it has none. */
export function extension(name: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m ? m[1].toLowerCase() : "";
}

/**
 * The type to record for an upload: the declared one when well-formed, else guessed from the name's
 * extension. Only a name without one is guessed from the first bytes (`head`): an extension Parley
 * does not know names some format it cannot show, so it is never taken for text. A declared
 * `text/plain` is what a multipart part without a Content-Type of its own reads as (RFC 7578's
 * default), so it is guessed too.
 */
export function mediaType(declared: string, name: string, head?: Uint8Array): string {
  const base = declared.split(";")[0].trim().toLowerCase();
  const vague = base === "application/octet-stream" || base === "text/plain";
  if (/^[a-z0-9][\w.+-]*\/[a-z0-9][\w.+-]*$/.test(base) && !vague) return base;
  const ext = extension(name);
  const byName = typeOfExtension(ext);
  if (byName) return byName;
  if (ext) return "application/octet-stream";
  if (head) return looksLikeText(head) ? "text/plain" : "application/octet-stream";
  return base === "text/plain" ? base : "application/octet-stream";
}

/**
 * Whether bytes read as UTF-8 text: no control byte but tab, LF and CR (so no NUL, escape or
 * backspace) and no invalid sequence (a cut last one is fine).
 *
 * @internal test seam
 */
export function looksLikeText(head: Uint8Array): boolean {
  for (const b of head) {
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f) return false;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** How an upload of a type is served: the Content-Type sent, and whether it is shown inline. */
export function servedAs(type: string): { type: string; inline: boolean } {
  if (INLINE.has(type)) return { type, inline: true };
  if (DOWNLOAD_TYPED.has(type)) return { type, inline: false };
  return { type: "application/octet-stream", inline: false };
}
