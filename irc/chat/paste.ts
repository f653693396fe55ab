/**
 * Paste: an outgoing message too long or with too many lines for the network is saved as a text
 * file, and one line goes out instead: its first line, its size and the file's URL, so people on
 * IRC see what it is about before they open it. The limits come from the host's connection profile.
 */
import type { Config } from "../../config.ts";
import type { Store } from "../../store/mod.ts";
import { FileQuotaError, fileUrl } from "../../store/files.ts";
import { invalid } from "../../lib/errors.ts";
import { hostId } from "../host_id.ts";
import { formatSize } from "../../protocol/size.ts";

/** Limits used when the host has no connection profile (the profile defaults). */
const PASTE_DEFAULTS = { maxMessageLength: 512, maxBulkMessageSize: 3 };

const encoder = new TextEncoder();

/**
 * Whether `text` exceeds the limits: longer than `maxLength` UTF-8 bytes or more than `maxLines`.
 *
 * @internal test seam
 */
export function needsPaste(text: string, maxLength: number, maxLines: number): boolean {
  return encoder.encode(text).length > maxLength || text.split(/\r\n|\r|\n/).length > maxLines;
}

/** The most of the first line that goes out with the link (characters). */
const PREVIEW_CHARS = 100;

/**
 * The line sent in place of a pasted `text`: its first non-empty line (cut to PREVIEW_CHARS, with
 * "…"), its size in lines and bytes, and the URL. `first line… (12 lines, 3.4 kB) https://…`
 *
 * @internal test seam
 */
export function pasteLine(text: string, url: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  const first = (lines.find((l) => l.trim()) ?? "").trim();
  const chars = [...first];
  const shown = chars.length > PREVIEW_CHARS || lines.length > 1
    ? chars.slice(0, PREVIEW_CHARS).join("") + "…"
    : first;
  const size = formatSize(encoder.encode(text).length);
  const about = lines.length > 1 ? `${lines.length} lines, ${size}` : size;
  return `${shown} (${about}) ${url}`;
}

/**
 * When `text` is longer than the host's profile `max_message_length` (bytes) or has more lines
 * than `max_bulk_message_size`, saves it as a text file and returns the line to send instead
 * (pasteLine); else undefined.
 *
 * @example
 * text = (await pasteIfLong(deps, user.id, "irc.libera.chat", text)) ?? text;
 */
export async function pasteIfLong(
  deps: { store: Store; config: Pick<Config, "baseUrl" | "maxUploadSize"> },
  userId: number,
  host: string,
  text: string,
): Promise<string | undefined> {
  const profile = await deps.store.profiles.get(hostId(host));
  const maxLength = profile?.maxMessageLength ?? PASTE_DEFAULTS.maxMessageLength;
  const maxLines = profile?.maxBulkMessageSize ?? PASTE_DEFAULTS.maxBulkMessageSize;
  if (!needsPaste(text, maxLength, maxLines)) return undefined;
  const file = await deps.store.files.save(
    { userId, name: "paste.txt", type: "text/plain", writeOnly: false },
    new Blob([text]).stream(),
    deps.config.maxUploadSize,
  ).catch((err) => {
    if (err instanceof FileQuotaError) throw invalid(err.message, "/body/message");
    throw err;
  });
  return pasteLine(text, fileUrl(deps.config.baseUrl, file));
}
