/** Long outgoing messages become a link to a saved text file ("paste"), as chat users expect. */
import type { Config } from "../config.ts";
import type { Store } from "../store/mod.ts";
import { fileUrl, saveText } from "../files/service.ts";
import { hostId } from "./host_id.ts";

/** What pasting needs: the store (profiles, files) and the config (data folder, base URL). */
export interface PasteDeps {
  config: Config;
  store: Store;
}

/** Limits used when the host has no connection profile. */
export const DEFAULT_MAX_MESSAGE_LENGTH = 512;
/** Lines a message may have before it is pasted, when the host has no profile. */
export const DEFAULT_MAX_BULK_MESSAGE_SIZE = 3;

/**
 * When `text` is longer (in UTF-8 bytes) than the host's profile `max_message_length`, or has
 * more lines than its `max_bulk_message_size` (defaults 512 and 3 without a profile), saves it as
 * a text file of the user and returns the file's URL; otherwise returns undefined.
 */
export async function pasteIfLong(
  deps: PasteDeps,
  userId: number,
  host: string,
  text: string,
): Promise<string | undefined> {
  const profile = await deps.store.profiles.get(hostId(host));
  const maxLength = profile?.maxMessageLength ?? DEFAULT_MAX_MESSAGE_LENGTH;
  const maxLines = profile?.maxBulkMessageSize ?? DEFAULT_MAX_BULK_MESSAGE_SIZE;
  const lines = text.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n").length;
  if (new TextEncoder().encode(text).length <= maxLength && lines <= maxLines) return undefined;
  const file = await saveText(deps, userId, text);
  return fileUrl(deps.config, file);
}
