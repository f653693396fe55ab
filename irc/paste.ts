/**
 * Paste: an outgoing message too long or with too many lines for the network is saved as a text
 * file, and its URL is sent instead. The limits come from the host's connection profile.
 */
import type { Config } from "../config.ts";
import type { Store } from "../store/mod.ts";
import { fileUrl } from "../store/files.ts";
import { hostId } from "./host_id.ts";

/** Limits used when the host has no connection profile (the profile defaults). */
export const PASTE_DEFAULTS = { maxMessageLength: 512, maxBulkMessageSize: 3 };

const encoder = new TextEncoder();

/** Whether `text` exceeds the limits: longer than `maxLength` UTF-8 bytes or more than `maxLines`. */
export function needsPaste(text: string, maxLength: number, maxLines: number): boolean {
  return encoder.encode(text).length > maxLength || text.split(/\r\n|\r|\n/).length > maxLines;
}

/**
 * Returns the URL of a saved text file holding `text` when it is longer than the host's profile
 * `max_message_length` (bytes) or has more lines than `max_bulk_message_size`, else undefined.
 * Used by the IRC send path: when it answers a URL, send the URL instead of the text.
 *
 * @example
 * const url = await pasteIfLong(deps, user.id, "irc.libera.chat", text);
 * if (url) text = url;
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
  );
  return fileUrl(deps.config.baseUrl, file);
}
