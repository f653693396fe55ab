/** Media types of uploaded files: guessing one from a name, and deciding how a type may be served. */

const BY_EXT: Record<string, string> = {
  txt: "text/plain",
  log: "text/plain",
  md: "text/plain",
  json: "application/json",
  pdf: "application/pdf",
  zip: "application/zip",
  gif: "image/gif",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  svg: "image/svg+xml",
  html: "text/html",
  htm: "text/html",
  xml: "application/xml",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  mp4: "video/mp4",
  ogv: "video/ogg",
  webm: "video/webm",
};

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

// Types that cannot run but that browsers open in a viewer of their own: downloaded, typed.
const DOWNLOAD_TYPED = new Set(["application/pdf"]);

/** The extension of a file name, lower-cased and without the dot; "" when it has none. */
export function extension(name: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m ? m[1].toLowerCase() : "";
}

/** The type to record for an upload: the declared one when well-formed, else guessed from the name. */
export function mediaType(declared: string, name: string): string {
  const base = declared.split(";")[0].trim().toLowerCase();
  if (/^[a-z0-9][\w.+-]*\/[a-z0-9][\w.+-]*$/.test(base) && base !== "application/octet-stream") {
    return base;
  }
  return BY_EXT[extension(name)] ?? "application/octet-stream";
}

/** How an upload of a type is served: the Content-Type sent, and whether it is shown inline. */
export function servedAs(type: string): { type: string; inline: boolean } {
  if (INLINE.has(type)) return { type, inline: true };
  if (DOWNLOAD_TYPED.has(type)) return { type, inline: false };
  return { type: "application/octet-stream", inline: false };
}
