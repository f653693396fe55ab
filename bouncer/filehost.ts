/**
 * soju.im/filehost: where attached IRC clients upload files (routes/filehost.ts serves it), told
 * in the `soju.im/FILEHOST` ISUPPORT token as an absolute URL under the base URL. Clients use it
 * only over https when they reach the listener over TLS, so the base URL should be https.
 */
import { underBaseUrl } from "../lib/base_url.ts";

/** The upload path under the base URL. */
export const FILEHOST_PATH = "irc/upload";

/** The upload URL told to clients. */
export function filehostUrl(baseUrl: URL): string {
  return underBaseUrl(baseUrl, FILEHOST_PATH).href;
}
