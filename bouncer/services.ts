/**
 * What the bouncer offers beside IRC (Web Push for IRC clients, the upload URL), given to its
 * context when it starts, and the ISUPPORT tokens that tell clients of them (soju.im/webpush's
 * `VAPID`, `soju.im/FILEHOST`).
 */
import type { Push } from "../push/mod.ts";
import type { Caps } from "./caps.ts";
import type { BouncerContext } from "./session.ts";

/** The services of one bouncer. */
export interface BouncerServices {
  push?: Push;
  /** The absolute upload URL (routes/filehost.ts). */
  filehost?: string;
}

/** The ISUPPORT tokens of the services a client with `caps` may use. */
export function serviceTokens(cx: BouncerContext, caps: Caps): string[] {
  const s = cx.services ?? {};
  const tokens: string[] = [];
  // The spec: advertised to a client that enabled the capability; the key never changes.
  if (s.push && caps.has("soju.im/webpush")) tokens.push(`VAPID=${s.push.keys.publicKey}`);
  if (s.filehost) tokens.push(`soju.im/FILEHOST=${s.filehost}`);
  return tokens;
}
