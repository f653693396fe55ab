/** Content types of stored files, and which of them a browser may show inline. */

const BY_EXT: Record<string, string> = {
  txt: "text/plain; charset=utf-8",
  log: "text/plain; charset=utf-8",
  md: "text/plain; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  json: "application/json",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  bmp: "image/bmp",
  ico: "image/x-icon",
  svg: "image/svg+xml",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  wav: "audio/wav",
  mp4: "video/mp4",
  m4v: "video/mp4",
  ogv: "video/ogg",
  webm: "video/webm",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  xhtml: "application/xhtml+xml",
  xml: "application/xml",
  js: "text/javascript",
  css: "text/css",
};

// Types a browser renders without running anything the file brings; everything else is a download.
const INLINE =
  /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon)|audio\/|video\/|text\/plain|application\/pdf|application\/json)/;

/** The extension of a file name, lower case, without the dot ("" when none). */
export function extension(name: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m ? m[1].toLowerCase() : "";
}

/**
 * The type to serve a file as: by its extension, else the uploader's claim when it is a
 * well-formed type, else `application/octet-stream`.
 */
export function contentTypeFor(name: string, claimed?: string): string {
  const known = BY_EXT[extension(name)];
  if (known) return known;
  if (claimed && /^[a-z]+\/[a-z0-9.+-]+$/i.test(claimed)) return claimed.toLowerCase();
  return "application/octet-stream";
}

/** Whether a type may be shown inline; others (HTML, SVG, XML, scripts, unknown) are attachments. */
export function servesInline(contentType: string): boolean {
  return INLINE.test(contentType);
}
